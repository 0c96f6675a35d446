#!/usr/bin/env node
// Summarises a V8 CPU profile (node --cpu-prof): the functions with the most self time, and the files.
//   node scripts/bench/profile-top.ts PROFILE.cpuprofile [N]
import fs from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const [file, n = '25'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/bench/profile-top.ts PROFILE.cpuprofile [N]');
  process.exit(2);
}
const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(prof.nodes.map((x) => [x.id, x]));
const self = new Map<number, number>();
prof.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const short = (url: string) => url.replace(/^file:\/\/.*?\/(node_modules|lib|scripts|e2e)\//, '$1/').replace(/^node:/, 'node:');
const fns = new Map<string, number>();
const files = new Map<string, number>();
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const key = `${functionName || '(anonymous)'} ${short(url)}${url ? `:${lineNumber + 1}` : ''}`;
  fns.set(key, (fns.get(key) ?? 0) + us);
  const f = url ? short(url) : `(${functionName})`;
  files.set(f, (files.get(f) ?? 0) + us);
}
const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)} %`;
console.log(`${(total / 1e6).toFixed(1)} s sampled`);
console.log('functions (self time):');
for (const [k, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${pct(us)}  ${k}`);
console.log('files (self time):');
for (const [k, us] of [...files].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${pct(us)}  ${k}`);

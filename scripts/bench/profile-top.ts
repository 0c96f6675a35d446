#!/usr/bin/env node
// Summarises a V8 CPU profile (node --cpu-prof): the functions with the most self time, the files, and the project's
// own functions by total time (their callees included: where a request's CPU goes, which self time scatters over
// node internals). Percentages are of the busy time (idle excluded).
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
const idle = [...self].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((a, [, us]) => a + us, 0);
const total = [...self.values()].reduce((a, b) => a + b, 0) - idle;
const short = (url: string) => url.replace(/^file:\/\/.*?\/(node_modules|lib|scripts|e2e)\//, '$1/').replace(/^node:/, 'node:');
const keyOf = (id: number) => {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  return `${functionName || '(anonymous)'} ${short(url)}${url ? `:${lineNumber + 1}` : ''}`;
};
const fns = new Map<string, number>();
const files = new Map<string, number>();
for (const [id, us] of self) {
  const { functionName, url } = byId.get(id)!.callFrame;
  if (functionName === '(idle)') continue;
  const key = keyOf(id);
  fns.set(key, (fns.get(key) ?? 0) + us);
  const f = url ? short(url) : `(${functionName})`;
  files.set(f, (files.get(f) ?? 0) + us);
}
// Total time: each node's self time added to it and to every caller above it, once per function on the path
// (a recursive function is not counted twice).
const parent = new Map<number, number>();
for (const x of prof.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
const inclusive = new Map<string, number>();
for (const [id, us] of self) {
  if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    if (!short(byId.get(at)!.callFrame.url).startsWith('lib/')) continue;
    const key = keyOf(at);
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}
const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)} %`;
console.log(`${(total / 1e6).toFixed(1)} s busy sampled (${((idle + total) / 1e6).toFixed(1)} s in all)`);
console.log('functions (self time):');
for (const [k, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${pct(us)}  ${k}`);
console.log('files (self time):');
for (const [k, us] of [...files].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${pct(us)}  ${k}`);
console.log('lib/ functions (total time, callees included):');
for (const [k, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${pct(us)}  ${k}`);

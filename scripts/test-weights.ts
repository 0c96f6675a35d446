#!/usr/bin/env node
// Writes scripts/test-weights.json, each test file's wall seconds, from the table of a full `npm test` run (the temp
// folder's lagoon-test-timings.txt, or the file named): scripts/test.ts places files in its lanes by these weights.
// Run it after a full run on a quiet machine of the kind CI uses; files the table lacks keep their old weight.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const table = process.argv[2] ?? path.join(os.tmpdir(), 'lagoon-test-timings.txt');
const out = path.join(import.meta.dirname, 'test-weights.json');
let weights: Record<string, number> = {};
try {
  weights = JSON.parse(fs.readFileSync(out, 'utf8'));
} catch {}
let read = 0;
for (const line of fs.readFileSync(table, 'utf8').split('\n')) {
  // "  235.1 s   157.6 s cpu     5  e2e/deploy/container.test.ts"
  const m = /^\s*([\d.]+) s\s+[\d.]+ s cpu\s+\d+\s+(\S+)$/.exec(line);
  if (!m) continue;
  weights[m[2]] = Math.max(1, Math.round(Number(m[1])));
  read++;
}
const existing = Object.fromEntries(Object.entries(weights).filter(([f]) => fs.existsSync(path.join(import.meta.dirname, '..', f))));
const sorted = Object.fromEntries(Object.entries(existing).sort(([a], [b]) => a.localeCompare(b)));
fs.writeFileSync(out, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test-weights: ${read} files from ${table}; ${Object.keys(sorted).length} weights in ${path.relative(process.cwd(), out)}`);

#!/usr/bin/env node
// The whole test suite: unit and API tests (node:test) over lib/ and e2e/, against real PostgreSQL and Redis.
// Ends with the line `N passed, N failed`.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureServices } from './services.ts';

await ensureServices();

// The browser tests serve the built app: build it when there is no build or the app's sources changed since.
if (buildIsStale()) {
  console.log('tests: building the app');
  const b = spawnSync('npm', ['run', 'build'], { stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  if (b.status !== 0) process.exit(b.status ?? 1);
}

function buildIsStale(): boolean {
  const built = fs.statSync('.next/BUILD_ID', { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return true;
  const sources = ['app', 'components', 'lib/app', 'public', 'next.config.mjs', 'postcss.config.mjs', 'package-lock.json'];
  return sources.some((p) => newestMtime(p) > built);
}

function newestMtime(p: string): number {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const e of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, e)));
  return newest;
}

const patterns = process.argv.slice(2).length
  ? process.argv.slice(2)
  : ['lib/**/*.test.ts', 'components/**/*.test.ts', 'e2e/**/*.test.ts', 'scripts/**/*.test.ts'];
const child = spawn(process.execPath, ['--test', '--test-reporter=spec', '--test-timeout=180000', ...patterns], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, NODE_ENV: 'test' },
});

const counts = { pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
// The summary lines (ℹ pass N, …) are read as they stream: the failure report printed after them can be long.
let partial = '';
const countLine = (line: string) => {
  const m = /^ℹ (pass|fail|cancelled|skipped|todo) (\d+)/.exec(line.trim());
  if (m) counts[m[1] as keyof typeof counts] = Number(m[2]);
};
child.stdout.on('data', (buf: Buffer) => {
  process.stdout.write(buf);
  const lines = (partial + buf.toString()).split('\n');
  partial = lines.pop() ?? '';
  for (const line of lines) countLine(line);
});
const code: number = await new Promise((resolve) => child.on('close', (c) => resolve(c ?? 1)));
countLine(partial);
const failed = counts.fail + counts.cancelled;
const skipped = counts.skipped + counts.todo;
console.log(`${counts.pass} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(code !== 0 || failed > 0 ? 1 : 0);

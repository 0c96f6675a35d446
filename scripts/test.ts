#!/usr/bin/env node
// The whole test suite: unit and API tests (node:test) over lib/ and e2e/, against real PostgreSQL and Redis.
// `--unit`: the fast tier only (scripts/unit-tests.ts picks the files): no services started, no app build.
// Other arguments: the test files or globs to run instead of all of them. A run that includes e2e/deploy builds its
// container images in the background from the start.
// Ends with the line `N passed, N failed`.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildIsStale } from './build-inputs.ts';
import { ensureServices } from './services.ts';
import { classifyTests } from './unit-tests.ts';

const args = process.argv.slice(2);
const unit = args[0] === '--unit';
if (unit) args.shift();

if (!unit) {
  await ensureServices();
  // The browser tests serve the built app: build it when there is no build or one of its inputs changed since.
  if (buildIsStale(path.resolve(import.meta.dirname, '..'), process.env.LAGOON_NEXT_DIST || '.next')) {
    console.log('tests: building the app');
    const b = spawnSync('npm', ['run', 'build'], { stdio: 'inherit', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
    if (b.status !== 0) process.exit(b.status ?? 1);
  }
}

// The deploy tests (wherever Podman works; LAGOON_CONTAINER_TESTS=0 leaves them out) build container images: a cold
// build takes minutes, so it starts now, in the background at the lowest CPU priority, and overlaps the rest of the
// suite (e2e/support/image-prebuild.ts, which does nothing where they would be skipped; its log in the temp folder).
let prebuild: ReturnType<typeof spawn> | undefined;
// The images this run has built (e2e/support/containers.ts buildImage): the tests skip rebuilding what it lists.
const imagesBuilt = path.join(os.tmpdir(), `lagoon-images-built-${process.pid}`);
process.env.LAGOON_IMAGES_BUILT = imagesBuilt;
if (!unit && process.env.LAGOON_CONTAINER_TESTS !== '0' && (args.length === 0 || args.some((a) => a.includes('deploy')))) {
  const log = fs.openSync(path.join(os.tmpdir(), 'lagoon-image-prebuild.log'), 'w');
  prebuild = spawn('nice', ['-n', '19', process.execPath, path.resolve(import.meta.dirname, '../e2e/support/image-prebuild.ts')], {
    stdio: ['ignore', log, log],
    detached: true, // its own process group: podman's build goes with it if the tests end first
  });
  prebuild.on('error', () => undefined);
}

const patterns = args.length
  ? args
  : unit
    ? classifyTests(path.resolve(import.meta.dirname, '..')).unit
    : ['lib/**/*.test.ts', 'components/**/*.test.ts', 'e2e/**/*.test.ts', 'scripts/**/*.test.ts'];
// The unit files share nothing, and many wait on timers or I/O: run at least two at once even on a 2-core machine, where
// node:test's default (cores - 1) would run them one by one.
const concurrency = unit ? [`--test-concurrency=${Math.max(2, os.availableParallelism() - 1)}`] : [];
const child = spawn(process.execPath, ['--test', '--test-reporter=spec', '--test-timeout=180000', ...concurrency, ...patterns], {
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
if (prebuild?.pid && prebuild.exitCode === null) {
  try {
    process.kill(-prebuild.pid);
  } catch {}
}
fs.rmSync(imagesBuilt, { force: true });
const failed = counts.fail + counts.cancelled;
const skipped = counts.skipped + counts.todo;
console.log(`${counts.pass} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(code !== 0 || failed > 0 ? 1 : 0);

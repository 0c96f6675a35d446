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
import { CUT_SHORT, ENDED_EARLY, FAILED } from './test-timings.ts';
import { classifyTests } from './unit-tests.ts';

const root = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const unit = args[0] === '--unit';
if (unit) args.shift();

if (!unit) {
  await ensureServices();
  // The browser tests serve the built app: build it when there is no build or one of its inputs changed since.
  if (buildIsStale(root, process.env.LAGOON_NEXT_DIST || '.next')) {
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
    ? classifyTests(root).unit
    : ['lib/**/*.test.ts', 'components/**/*.test.ts', 'e2e/**/*.test.ts', 'scripts/**/*.test.ts'];
// The unit files share nothing, and many wait on timers or I/O: run at least two at once even on a 2-core machine, where
// node:test's default (cores - 1) would run them one by one.
// A lane of the full suite runs its files one at a time (below): node's default would run cores - 1 of them at once in
// every lane on a larger machine.
const concurrency = [`--test-concurrency=${unit ? Math.max(2, os.availableParallelism() - 1) : 1}`];

// The full suite runs in lanes side by side, each one file at a time. Most files wait on servers, chains, browsers and
// timers more than they compute (a browser file uses about a third of a core, the rest about two thirds), so lanes
// take far less wall time than one. Files are placed by their last measured wall times (scripts/test-weights.json,
// written by `node scripts/test-weights.ts` from a run's table; longest first, each to the lighter lane):
//   - 2 lanes: the browser files (Chromium beside a server) in one, the rest in the other;
//   - 3 lanes (the default below four cores): the browser files in one, the rest split in two;
//   - 4 lanes (four cores or more): the browser files split in two, the rest in two.
// Four lanes on two cores reached the browser files' timeouts (tried in CI). LAGOON_TEST_LANES=1 to 4 chooses. The
// container tests stay together, last in their lane, so the background image build (above) has had the rest of the
// run to finish. The first lane's report streams; the others follow when all end.
const BROWSER = /^e2e\/browser\//;
const LAST = /^e2e\/deploy\//;
const files = unit
  ? patterns
  : [...new Set(patterns.flatMap((p) => (/[*?[]/.test(p) ? fs.globSync(p, { cwd: root }) : [p])))]
      .filter((f) => !f.includes('node_modules'))
      .sort((a, b) => a.localeCompare(b));

let weights: Record<string, number> = {};
try {
  weights = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'test-weights.json'), 'utf8'));
} catch {}
const weight = (f: string) => weights[f] ?? 10;

/** Splits files into n lanes by weight (the container tests as one item, last in its lane). */
function balance(list: string[], n: number): string[][] {
  const items = [list.filter((f) => !LAST.test(f)).map((f) => [f]), [list.filter((f) => LAST.test(f))]].flat().filter((i) => i.length);
  const itemWeight = (i: string[]) => i.reduce((t, f) => t + weight(f), 0);
  const out = Array.from({ length: n }, () => ({ files: [] as string[], total: 0 }));
  for (const item of items.sort((a, b) => itemWeight(b) - itemWeight(a))) {
    const lane = out.reduce((min, l) => (l.total < min.total ? l : min));
    lane.files.push(...item);
    lane.total += itemWeight(item);
  }
  return out.map((l) => l.files.sort((a, b) => Number(LAST.test(a)) - Number(LAST.test(b)) || a.localeCompare(b)));
}

const laneCount = Math.min(4, Math.max(1, Number(process.env.LAGOON_TEST_LANES ?? (os.availableParallelism() >= 4 ? 4 : 3)) || 1));
const browser = files.filter((f) => BROWSER.test(f));
const rest = files.filter((f) => !BROWSER.test(f));
const lanes = (
  unit || laneCount === 1
    ? [files.sort((a, b) => Number(LAST.test(a)) - Number(LAST.test(b)) || a.localeCompare(b))]
    : laneCount === 2
      ? [...balance(rest, 1), browser]
      : laneCount === 3
        ? [...balance(rest, 2), browser]
        : [...balance(rest, 2), ...balance(browser, 2)]
).filter((l) => l.length);

const counts = { pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
const countLine = (line: string, into: typeof counts) => {
  const m = /^ℹ (pass|fail|cancelled|skipped|todo) (\d+)/.exec(line.trim());
  if (m) into[m[1] as keyof typeof counts] = Number(m[2]);
};

interface Lane {
  code: number;
  counts: typeof counts;
  wallS: number;
  timings: string;
  log?: string;
}

function runLane(laneFiles: string[], index: number): Promise<Lane> {
  // Each file's wall time goes to a file beside the log (scripts/test-timings.ts); the slowest are printed at the end.
  const timings = path.join(os.tmpdir(), `lagoon-test-timings-${process.pid}-${index}.txt`);
  const log = index === 0 ? undefined : path.join(os.tmpdir(), `lagoon-test-lane-${process.pid}-${index}.log`);
  const reporters = [
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${path.resolve(import.meta.dirname, 'test-timings.ts')}`,
    `--test-reporter-destination=${timings}`,
  ];
  const t0 = performance.now();
  // --test-force-exit: a file whose tests have ended exits even if a failed cleanup left a server or a child's pipe
  // open; without it such a file never ends and the whole run hangs (a test's timeout covers tests, not that wait).
  const child = spawn(
    process.execPath,
    [
      `--import=${path.resolve(import.meta.dirname, 'test-child.ts')}`,
      '--test',
      ...reporters,
      '--test-timeout=180000',
      '--test-force-exit',
      ...concurrency,
      ...laneFiles,
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, NODE_ENV: 'test' },
    },
  );
  const out = log ? fs.createWriteStream(log) : process.stdout;
  const mine = { pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
  // The summary lines (ℹ pass N, …) are read as they stream: the failure report printed after them can be long.
  let partial = '';
  child.stdout.on('data', (buf: Buffer) => {
    out.write(buf);
    const lines = (partial + buf.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) countLine(line, mine);
  });
  return new Promise((resolve) =>
    child.on('close', (c) => {
      countLine(partial, mine);
      const done = () => resolve({ code: c ?? 1, counts: mine, wallS: (performance.now() - t0) / 1000, timings, log });
      if (log) (out as fs.WriteStream).end(done);
      else done();
    }),
  );
}

const results = await Promise.all(lanes.map((l, i) => runLane(l, i)));
for (const r of results) {
  if (r.log) {
    process.stdout.write(fs.readFileSync(r.log));
    fs.rmSync(r.log, { force: true });
  }
  for (const k of Object.keys(counts) as (keyof typeof counts)[]) counts[k] += r.counts[k];
}
const code = results.some((r) => r.code !== 0) ? 1 : 0;
if (prebuild?.pid && prebuild.exitCode === null) {
  try {
    process.kill(-prebuild.pid);
  } catch {}
}
// The slowest files over all lanes, each lane's wall and CPU time; the whole table stays in the temp folder.
const rows: string[] = [];
const laneCpu: string[] = [];
const table = path.join(os.tmpdir(), 'lagoon-test-timings.txt');
fs.writeFileSync(table, '');
for (const r of results) {
  try {
    const text = fs.readFileSync(r.timings, 'utf8');
    fs.appendFileSync(table, text);
    laneCpu.push(/([\d.]+) s CPU/.exec(text)?.[1] ?? '?');
    rows.push(...text.split('\n').filter((l) => /^\s*[\d.]+ s /.test(l)));
    fs.rmSync(r.timings);
  } catch {
    laneCpu.push('?');
  }
}
rows.sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
const tableLines = fs.readFileSync(table, 'utf8').split('\n');
const linesOf = (prefix: string) => tableLines.filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length));
const endedEarly = linesOf(ENDED_EARLY);
const cutShort = linesOf(CUT_SHORT);
const failures = linesOf(FAILED).map((l) => JSON.parse(l) as { file: string; test: string; error: string });
const lanesLine = results.map((r, i) => `lane ${i + 1}: ${lanes[i].length} files in ${r.wallS.toFixed(0)} s (${laneCpu[i]} s CPU)`).join('; ');
console.log(`# slowest test files (wall, CPU of its processes, top-level tests, file); ${lanesLine}; all: ${table}`);
console.log(rows.slice(0, 15).join('\n'));
fs.rmSync(imagesBuilt, { force: true });
// Each failure once more, with what it threw, where the end of the output (all CI keeps in view) shows it.
const SHOWN_FAILURES = 10;
if (failures.length) console.log(`# failures (${failures.length}${failures.length > SHOWN_FAILURES ? `, the first ${SHOWN_FAILURES}` : ''}):`);
for (const f of failures.slice(0, SHOWN_FAILURES)) console.log(`✖ ${f.file} › ${f.test}\n${f.error.replace(/^/gm, '    ')}`);
// A file that ended early passed as one test in node's count: it is a failure here, whatever it managed to report.
for (const f of endedEarly) console.log(`✖ ${f}: its process ended before its tests had reported (an exit midway?)`);
// A file cut short was counted by the tests it did report; the ones it never did fail it here.
for (const f of cutShort) console.log(`✖ ${f}: its report stopped before all its tests had a verdict (an exit midway, or lost frames)`);
const failed = counts.fail + counts.cancelled + endedEarly.length + cutShort.length;
const skipped = counts.skipped + counts.todo;
console.log(`${counts.pass - endedEarly.length} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(code !== 0 || failed > 0 ? 1 : 0);

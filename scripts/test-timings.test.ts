// The timings reporter names a test file whose process ended (status 0) before its tests had all reported — node's
// runner counts such a file as one passing test — or one whose report stopped after some of its tests (node counts
// only those, and exits 0), and names no file that ran to its end; and it writes each failed test with what it threw
// (the assertion's message, not node's wrapper), and not the parents of failed tests. The inner runs use the flags of
// scripts/test.ts: the child preload and the forced exit.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { CUT_SHORT, ENDED_EARLY, FAILED } from './test-timings.ts';

/** Writes the files into a fresh folder, runs them with `reporter`; the run's status, stdout and reporter lines. */
function innerRun(files: Record<string, string>, reporter: 'timings' | 'tap' = 'timings') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-timings-'));
  try {
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
    const out = path.join(dir, 'timings.txt');
    const reporters =
      reporter === 'tap'
        ? ['--test-reporter=tap']
        : [`--test-reporter=${path.join(import.meta.dirname, 'test-timings.ts')}`, `--test-reporter-destination=${out}`];
    const r = spawnSync(
      process.execPath,
      [`--import=${path.join(import.meta.dirname, 'test-child.ts')}`, '--test', '--test-force-exit', ...reporters, ...Object.keys(files)],
      // NODE_TEST_CONTEXT would make the inner run report to this one instead of to its reporter.
      { cwd: dir, encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined }, maxBuffer: 64 * 1024 * 1024 },
    );
    const lines = reporter === 'tap' ? [] : fs.readFileSync(out, 'utf8').split('\n');
    return { status: r.status, stdout: r.stdout, lines };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const endedEarly = (lines: string[]) => lines.filter((l) => l.startsWith(ENDED_EARLY));

test('a file that exits midway is reported as ended early; a whole one is not', () => {
  const body = (exitAt: number) =>
    `import { describe, it } from 'node:test';\ndescribe('d', () => { for (let i = 0; i < 5; i++) it('t' + i, () => { if (i === ${exitAt}) process.exit(0); }); });\n`;
  const r = innerRun({ 'early.test.mjs': body(2), 'whole.test.mjs': body(-1) });
  assert.equal(r.status, 0, 'node itself counts the early file as passed');
  assert.deepEqual(endedEarly(r.lines), [`${ENDED_EARLY}early.test.mjs`]);
  assert.deepEqual(
    r.lines.filter((l) => l.startsWith(CUT_SHORT)),
    [],
    'named once',
  );
});

test('a file whose report stops after its first test is named too (node counts one test and exits 0)', () => {
  // 'a' is reported; 'b' ends the process before its verdict, so 'b' and 'c' never are.
  const r = innerRun({
    'cut.test.mjs':
      "import { test } from 'node:test';\ntest('a', () => {});\n" +
      "test('b', () => new Promise(() => setTimeout(() => process.exit(0), 200)));\ntest('c', () => {});\n",
  });
  assert.equal(r.status, 0, 'node itself passes the run');
  assert.deepEqual(
    r.lines.filter((l) => l.startsWith(CUT_SHORT)),
    [`${CUT_SHORT}cut.test.mjs`],
  );
  assert.deepEqual(endedEarly(r.lines), [], 'node counted its first test, not the file, as passed');
});

test('a failed test is written with its file, its name and what it threw; its parent is not', () => {
  const r = innerRun({
    'fails.test.mjs':
      "import assert from 'node:assert/strict';\nimport { describe, it } from 'node:test';\n" +
      "describe('group', () => { it('counts', () => assert.deepEqual(['503 busy'], [])); it('passes', () => {}); });\n",
  });
  const failed = r.lines.filter((l) => l.startsWith(FAILED)).map((l) => JSON.parse(l.slice(FAILED.length)));
  assert.equal(failed.length, 1, JSON.stringify(failed));
  assert.equal(failed[0].file, 'fails.test.mjs');
  assert.equal(failed[0].test, 'counts');
  assert.match(failed[0].error, /Expected values to be strictly deep-equal/);
  assert.match(failed[0].error, /503 busy/);
  assert.deepEqual(endedEarly(r.lines), []);
});

test('with the child preload, a forced exit loses none of 2,000 verdicts (nodejs/node#64833)', () => {
  const lines = ["import { test } from 'node:test';"];
  for (let i = 0; i < 2000; i++) lines.push(`test('test ${i} with a name long enough to fill the report pipe', () => {});`);
  const r = innerRun({ 'many.test.mjs': `${lines.join('\n')}\n` }, 'tap');
  assert.equal(r.status, 0);
  assert.match(r.stdout, /^# tests 2000$/m);
});

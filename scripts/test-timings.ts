// A node:test reporter that writes how long each test file took, slowest first, so the suite's wall time has a
// breakdown without timing anything inside the tests. scripts/test.ts runs it beside the spec reporter and prints the
// head of the list. A file's time is the runner's own duration for the file's process (its imports and hooks too).
//
// Beside the wall time, the CPU each file's process tree used (user + system): the reporter runs in the runner's
// process, which reaps each file's process, so the runner's children's CPU (/proc/self/stat) grows by that file's
// CPU — its servers, engines and browsers included — when the file ends. Wall time depends on what else the machine
// runs; CPU time much less, so it is the number to cut when the suite is slow on a busy machine. Files run one at a
// time in a lane, so each growth belongs to the file that just ended.
import fs from 'node:fs';
import type { TestEvent } from 'node:test/reporters';

const TICKS = 100; // USER_HZ on Linux

function childrenCpuS(): number | undefined {
  try {
    // Fields after the command's closing parenthesis; cutime and cstime are fields 16 and 17 of the line.
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / TICKS;
  } catch {
    return undefined; // not Linux: wall time only
  }
}

/**
 * The line scripts/test.ts counts as a failure: a file whose process exited (status 0) before it reported any test,
 * which node's runner counts as one passing test.
 */
export const ENDED_EARLY = '# ended early: ';
/**
 * Also a failure: a file whose report stopped after some of its tests (an exit midway, or frames lost): a top-level
 * test announced and never passed or failed. Node counts only the tests it heard of, and no pass for the file.
 */
export const CUT_SHORT = '# cut short: ';
/**
 * A failed test and why, as one JSON line ({ file, test, error }): scripts/test.ts prints these last, beside the
 * totals, because CI shows the end of the output and the spec reporter's own account of a failure in the first lane
 * is thousands of lines above it.
 */
export const FAILED = '# failed: ';
/** How much of a failure's message is kept: an assertion's diff says what it needs within this. */
const FAILURE_CHARS = 2_000;

interface Failure {
  message?: string;
  failureType?: string;
  cause?: unknown;
}

/** What a failed test threw, without node:test's wrapper; undefined for a parent whose subtests failed. */
function failureText(error: Failure | undefined): string | undefined {
  if (!error || error.failureType === 'subtestsFailed') return undefined;
  const cause = (error.cause ?? error) as Failure & { stack?: string };
  const raw = cause instanceof Error ? (cause.stack ?? cause.message) : String(cause?.message ?? cause);
  // The runner's own frames say nothing about the test.
  const text = raw
    .split('\n')
    .filter((l) => !/^\s+at (.*\()?node:/.test(l))
    .join('\n');
  return text.length > FAILURE_CHARS ? `${text.slice(0, FAILURE_CHARS)}…` : text;
}

export default async function* timings(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const files = new Map<string, { s: number; cpu: number; tests: number; unreported: Map<string, number> }>();
  const endedEarly: string[] = [];
  const failures: { file: string; test: string; error: string }[] = [];
  let lastCpu = childrenCpuS();
  for await (const event of source) {
    const data = event.data as { file?: string; nesting?: number; name?: string; details?: { duration_ms?: number; error?: Failure } } | undefined;
    if (event.type === 'test:fail' && data?.file) {
      const error = failureText(data.details?.error);
      if (error) failures.push({ file: data.file.replace(`${process.cwd()}/`, ''), test: data.name ?? '', error });
    }
    if (!data?.file || data.nesting !== 0) continue;
    const row = files.get(data.file) ?? { s: 0, cpu: 0, tests: 0, unreported: new Map<string, number>() };
    files.set(data.file, row);
    // The runner's entry for the whole file is named by its path (relative to where the run started).
    const whole = data.name !== undefined && data.file.endsWith(`/${data.name}`);
    if (whole && event.type === 'test:complete') {
      row.s = (data.details?.duration_ms ?? 0) / 1000;
      const cpu = childrenCpuS();
      if (cpu !== undefined && lastCpu !== undefined) row.cpu = cpu - lastCpu;
      lastCpu = cpu;
    } else if (whole && event.type === 'test:pass') {
      // The runner passes the file itself only when its process exited with status 0 before reporting its tests (a
      // process.exit midway, or reports lost): the tests that never ran would otherwise vanish from the totals.
      endedEarly.push(data.file);
    } else if (!whole && data.name !== undefined) {
      // Each top-level test is announced (enqueued) as the file loads, and every one gets a verdict, skipped ones too.
      const left = row.unreported.get(data.name) ?? 0;
      if (event.type === 'test:enqueue') row.unreported.set(data.name, left + 1);
      else if (event.type === 'test:pass' || event.type === 'test:fail') {
        row.tests++;
        if (left <= 1) row.unreported.delete(data.name);
        else row.unreported.set(data.name, left - 1);
      }
    }
  }
  for (const file of endedEarly) yield `${ENDED_EARLY}${file.replace(`${process.cwd()}/`, '')}\n`;
  for (const [file, row] of files) if (row.unreported.size && !endedEarly.includes(file)) yield `${CUT_SHORT}${file.replace(`${process.cwd()}/`, '')}\n`;
  for (const f of failures) yield `${FAILED}${JSON.stringify(f)}\n`;
  const rows = [...files].map(([file, r]) => ({ file: file.replace(`${process.cwd()}/`, ''), ...r }));
  rows.sort((a, b) => b.s - a.s);
  const total = rows.reduce((t, r) => t + r.s, 0);
  const cpu = rows.reduce((t, r) => t + r.cpu, 0);
  yield `# test files by wall time (sum ${total.toFixed(0)} s wall, ${cpu.toFixed(0)} s CPU over ${rows.length} files; wall, CPU, top-level tests, file)\n`;
  for (const r of rows) yield `${r.s.toFixed(1).padStart(7)} s ${r.cpu.toFixed(1).padStart(7)} s cpu  ${String(r.tests).padStart(4)}  ${r.file}\n`;
}

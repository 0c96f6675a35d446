// A node:test reporter that writes how long each test file took, slowest first, so the suite's wall time has a
// breakdown without timing anything inside the tests. scripts/test.ts runs it beside the spec reporter and prints the
// head of the list. A file's time is the runner's own duration for the file's process (its imports and hooks too).
import type { TestEvent } from 'node:test/reporters';

export default async function* timings(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const files = new Map<string, { s: number; tests: number }>();
  for await (const event of source) {
    const data = event.data as { file?: string; nesting?: number; name?: string; details?: { duration_ms?: number } } | undefined;
    if (!data?.file || data.nesting !== 0) continue;
    const row = files.get(data.file) ?? { s: 0, tests: 0 };
    files.set(data.file, row);
    // The runner's entry for the whole file is named by its path (relative to where the run started).
    const whole = data.name !== undefined && data.file.endsWith(`/${data.name}`);
    if (whole && event.type === 'test:complete') row.s = (data.details?.duration_ms ?? 0) / 1000;
    else if (!whole && (event.type === 'test:pass' || event.type === 'test:fail')) row.tests++;
  }
  const rows = [...files].map(([file, r]) => ({ file: file.replace(`${process.cwd()}/`, ''), ...r }));
  rows.sort((a, b) => b.s - a.s);
  const total = rows.reduce((t, r) => t + r.s, 0);
  yield `# test files by wall time (sum ${total.toFixed(0)} s over ${rows.length} files; seconds, top-level tests, file)\n`;
  for (const r of rows) yield `${r.s.toFixed(1).padStart(7)} s  ${String(r.tests).padStart(4)}  ${r.file}\n`;
}

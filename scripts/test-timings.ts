// A node:test reporter that writes how long each test file took, slowest first, so the suite's wall time has a
// breakdown without timing anything inside the tests. scripts/test.ts runs it beside the spec reporter and prints the
// head of the list. A file's time runs from when the runner dequeues it (its process starts) to its completion, by the
// wall clock: its imports and hooks included.
import type { TestEvent } from 'node:test/reporters';

export default async function* timings(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const spans = new Map<string, { first: number; last: number; tests: number }>();
  for await (const event of source) {
    const data = event.data as { file?: string; nesting?: number; name?: string } | undefined;
    if (!data?.file) continue;
    const now = performance.now();
    const span = spans.get(data.file) ?? { first: now, last: now, tests: 0 };
    const whole = data.name === data.file; // the runner's own entry for the file
    if (whole && event.type === 'test:dequeue') span.first = now;
    span.last = now;
    if ((event.type === 'test:pass' || event.type === 'test:fail') && data.nesting === 0 && !whole) span.tests++;
    spans.set(data.file, span);
  }
  const rows = [...spans].map(([file, s]) => ({ file: file.replace(`${process.cwd()}/`, ''), s: (s.last - s.first) / 1000, tests: s.tests }));
  rows.sort((a, b) => b.s - a.s);
  const total = rows.reduce((t, r) => t + r.s, 0);
  yield `# test files by wall time (sum ${total.toFixed(0)} s over ${rows.length} files)\n`;
  for (const r of rows) yield `${r.s.toFixed(1).padStart(7)} s  ${String(r.tests).padStart(4)}  ${r.file}\n`;
}

// The built-in code runner against its real sandbox (QuickJS in WebAssembly, in a worker thread): what it returns,
// its limits (time, memory, output), that the script reaches nothing of the host, and that a long run leaves the
// event loop free.
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { describe, test } from 'node:test';
import { codeRunnerTool, runJavaScript } from './code-runner.ts';

const limits = { timeoutMs: 1000, memoryBytes: 16 * 1024 * 1024, maxResultChars: 500 };
const ctx = { signal: new AbortController().signal };

describe('the code runner', () => {
  test('prints, returns the last value, and reports a thrown error', async () => {
    const tool = codeRunnerTool(limits);
    const ok = await tool.run({ code: 'console.log("sum", [1, 2, 3].reduce((a, b) => a + b)); ({ answer: 6 * 7 })' }, ctx);
    assert.deepEqual(ok, { text: 'sum 6\n=> {"answer":42}', isError: false, truncated: false });
    const bad = await tool.run({ code: 'throw new RangeError("nope")' }, ctx);
    assert.deepEqual(bad, { text: 'RangeError: nope', isError: true, truncated: false });
    assert.equal((await tool.run({ code: 'let x = ;' }, ctx)).text.startsWith('SyntaxError'), true);
    assert.equal((await tool.run({ code: 42 }, ctx)).isError, true);
  });

  test('the script reaches nothing of the host', async () => {
    // `import.meta` outside a module is a syntax error: modules are not available either.
    const o = await runJavaScript('typeof import.meta', limits);
    assert.match(o.error ?? '', /SyntaxError/);
    const g = await runJavaScript('[typeof require, typeof process, typeof fetch, typeof setTimeout, typeof std, typeof os].join()', limits);
    assert.equal(g.value, 'undefined,undefined,undefined,undefined,undefined,undefined');
  });

  test('limits: time, memory and output; a long run leaves the event loop free', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    const started = Date.now();
    const tool = codeRunnerTool(limits);
    const spin = await tool.run({ code: 'for (;;) {}' }, ctx);
    clearInterval(timer);
    assert.deepEqual(spin, { text: 'Error: the code ran out of time', isError: true, truncated: false });
    // The interpreter's deadline, or the hard stop 2 s behind it on a loaded machine.
    assert.ok(Date.now() - started < 6000);
    assert.ok(ticks >= 5, `the event loop ran meanwhile (${ticks} ticks)`);

    // Big arrays reach the 16 MB cap in a few steps, long before a generous deadline.
    const hog = await codeRunnerTool({ ...limits, timeoutMs: 60_000 }).run({ code: 'const a = []; for (;;) a.push(new Array(100000).fill(1.5));' }, ctx);
    assert.equal(hog.text, 'Error: the code ran out of memory');

    const loud = await tool.run({ code: 'for (let i = 0; i < 10000; i++) console.log("line", i)' }, ctx);
    assert.equal(loud.truncated, true);
    assert.ok(loud.text.length < 700, String(loud.text.length));
  });

  test('one run at a time per user', async () => {
    const slow = codeRunnerTool({ ...limits, timeoutMs: 1500 }, 'user-a');
    const first = slow.run({ code: 'for (;;) {}' }, ctx);
    await new Promise((r) => setTimeout(r, 50));
    assert.match((await slow.run({ code: '1' }, ctx)).text, /busy/);
    // Another user runs beside it where the machine has a core to spare (cores - 1 runs at once).
    const other = (await codeRunnerTool(limits, 'user-b').run({ code: '1 + 1' }, ctx)).text;
    if (availableParallelism() > 2) assert.equal(other, '=> 2', 'another user is not held up');
    else assert.match(other, /busy/);
    await first;
    assert.equal((await slow.run({ code: '2' }, ctx)).text, '=> 2', 'free again once the first ended');
  });

  test('a stopped answer stops its run', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const started = Date.now();
    const o = await runJavaScript('for (;;) {}', { ...limits, timeoutMs: 10_000 }, ac.signal);
    assert.match(o.error ?? '', /stopped/);
    assert.ok(Date.now() - started < 2000);
  });
});

// The audio engines' child processes under a CPU-time limit: a program that spins is stopped by the kernel and
// reported as such; a program that is not installed is still told apart (MissingBinary) though prlimit starts it;
// a well-behaved one gives its output as before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MissingBinary, ProcessFailed, runProcess } from './processes.ts';

test('a program that spins is stopped once it has used its CPU seconds', async () => {
  const started = Date.now();
  await assert.rejects(runProcess('/bin/sh', ['-c', 'while :; do :; done'], { cpuSeconds: 1 }), (e: unknown) => {
    assert.ok(e instanceof ProcessFailed, String(e));
    assert.match(e.message, /CPU time/);
    return true;
  });
  assert.ok(Date.now() - started < 30_000);
});

test('a missing program under a CPU limit is still MissingBinary; a well-behaved one answers', async () => {
  await assert.rejects(runProcess('/nonexistent/ffmpeg', ['-version'], { cpuSeconds: 5 }), MissingBinary);
  assert.equal((await runProcess('/bin/echo', ['hello'], { cpuSeconds: 5 })).toString(), 'hello\n');
});

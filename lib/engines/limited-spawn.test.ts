import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawn } from 'node:child_process';
import { limitedCommand } from './limited-spawn.ts';

test('limitedCommand: prlimit sets the CPU seconds for the one program', () => {
  const [cmd, args] = limitedCommand('ffmpeg', ['-i', 'x'], 12.2);
  assert.match(cmd, /prlimit$/);
  assert.deepEqual(args, ['--cpu=13', '--', 'ffmpeg', '-i', 'x']);
});

test('a busy loop is stopped by the kernel once its CPU seconds are used', async () => {
  const t0 = Date.now();
  const [cmd, args] = limitedCommand('sh', ['-c', 'while :; do :; done'], 1);
  const child = spawn(cmd, args, { stdio: 'ignore' });
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.once('close', (_code, sig) => resolve(sig)));
  assert.ok(signal === 'SIGXCPU' || signal === 'SIGKILL', String(signal));
  assert.ok(Date.now() - t0 < 10_000, `${Date.now() - t0} ms`);
});

// The embedded store's WAL stays bounded under steady writes: the checkpointer copies it back and, past its limit,
// truncates it, while every write still commits. (Counted, not timed: how far the file grows between two of the
// worker's turns depends on the machine.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { openSqlite } from './sqlite.ts';

test('steady writes: the WAL is truncated past its limit, and no write is lost', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-wal-'));
  const file = path.join(dir, 'test.db');
  const limit = 512 * 1024;
  const store = openSqlite(file, { checkpoint: { intervalMs: 10, restartBytes: limit } });
  try {
    await store.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    const body = 'x'.repeat(4000); // about one page per row
    const insert = () => store.tx((q) => q.run('INSERT INTO t (body) VALUES ($1)', [body]));
    const walBytes = () => fs.statSync(`${file}-wal`).size;
    // The worker is up once it has truncated a log past the limit.
    for (let i = 0; i < 500; i++) await insert();
    for (let waited = 0; walBytes() > limit; waited += 10) {
      assert.ok(waited < 10_000, 'the checkpointer never truncated the WAL');
      await new Promise((r) => setTimeout(r, 10));
    }
    const rows = 4000; // ~16 MB more through the WAL: 32 times its limit
    let shrinks = 0;
    let last = walBytes();
    for (let i = 0; i < rows; i++) {
      await insert();
      // A server's commits come between other work (a commit per event-loop turn at most): the worker's
      // checkpoint takes the lock in such a gap.
      await new Promise((r) => setImmediate(r));
      const now = walBytes();
      if (now < last) shrinks++;
      last = now;
    }
    const n = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM t');
    assert.equal(Number(n?.n), 500 + rows, 'every write committed');
    // PASSIVE checkpoints alone never shrink the file: under steady writes it would hold all ~18 MB.
    assert.ok(shrinks >= 3, `the WAL was truncated ${shrinks} times while the writes went on`);
    for (let waited = 0; walBytes() > 2 * limit; waited += 10) {
      assert.ok(waited < 10_000, `the WAL stayed at ${walBytes()} bytes`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

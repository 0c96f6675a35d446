// WAL checkpoints off the request path. SQLite's automatic checkpoint runs inside whichever COMMIT crosses the
// threshold, copying pages and fsyncing on the event loop; a worker thread with its own connection does it instead,
// concurrently with writers (PASSIVE mode never blocks them).
//
// PASSIVE alone never lets the WAL start over under steady writes: SQLite rewinds the log only when a write begins
// with every frame already copied back, and a commit always lands between a checkpoint's start and its end. The file
// then grows without end (3 GB in 150 s at 2,900 requests/s). So once the log holds more than `restartBytes`, the
// worker copies the few frames since its PASSIVE pass and truncates the file (TRUNCATE mode): writers wait for that
// moment (a few ms, in SQLite's busy handler), readers never do.
import { Worker } from 'node:worker_threads';

const WORKER = `
const { DatabaseSync } = require('node:sqlite');
const { workerData, parentPort } = require('node:worker_threads');
const db = new DatabaseSync(workerData.file);
db.exec('PRAGMA busy_timeout = 1000');
const pageBytes = db.prepare('PRAGMA page_size').get().page_size;
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const tick = () => {
  try {
    const r = passive.get();
    if (r.log * (pageBytes + 24) > workerData.restartBytes) db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  } catch {}
};
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', (m) => { if (m === 'stop') { clearInterval(timer); tick(); db.close(); process.exit(0); } });
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export interface CheckpointOptions {
  /** How often the worker checkpoints. */
  intervalMs?: number;
  /** The WAL's size past which it is truncated once checkpointed. */
  restartBytes?: number;
}

export function startCheckpointer(file: string, { intervalMs = 1000, restartBytes = 64 * 1024 * 1024 }: CheckpointOptions = {}): Checkpointer {
  const worker = new Worker(WORKER, { eval: true, workerData: { file, intervalMs, restartBytes } });
  worker.unref();
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.ref(); // keep the process alive until the final checkpoint is done
        worker.postMessage('stop');
      }),
  };
}

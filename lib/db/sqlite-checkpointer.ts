// WAL checkpoints off the request path. SQLite's automatic checkpoint runs inside whichever COMMIT crosses the
// threshold, copying pages and fsyncing on the event loop; a worker thread with its own connection does it instead,
// concurrently with writers (PASSIVE mode never blocks them).
import { Worker } from 'node:worker_threads';

const WORKER = `
const { DatabaseSync } = require('node:sqlite');
const { workerData, parentPort } = require('node:worker_threads');
const db = new DatabaseSync(workerData.file);
db.exec('PRAGMA busy_timeout = 1000');
const tick = () => { try { db.exec('PRAGMA wal_checkpoint(PASSIVE)'); } catch {} };
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', (m) => { if (m === 'stop') { clearInterval(timer); tick(); db.close(); process.exit(0); } });
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(file: string, intervalMs = 1000): Checkpointer {
  const worker = new Worker(WORKER, { eval: true, workerData: { file, intervalMs } });
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

// The worker thread an import parses in (import-parse.ts): JSON.parse of a large export takes the event loop for
// seconds otherwise. One thread per import, ended when it answers.
import { parentPort, workerData } from 'node:worker_threads';
import { parseImportBytes } from './import-parse.ts';

const { bytes, limits } = workerData as { bytes: Uint8Array; limits: { maxChats: number; maxMessages: number } };
try {
  parentPort?.postMessage({ ok: parseImportBytes(bytes, limits) });
} catch (e) {
  parentPort?.postMessage({ error: (e as Error).message });
}

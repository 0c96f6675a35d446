// A flite worker thread: compiles flite.wasm (21 MB) once, then runs a fresh WASI instance per piece of text (a WASI
// program runs its `_start` once) and hands back 16-bit mono PCM at the pool's sample rate. It runs synchronously
// here, off the server's event loop; flite's own chatter (unit warnings) goes to /dev/null.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WASI } from 'node:wasi';
import { parentPort, workerData } from 'node:worker_threads';
import { parseWav, resample } from '../wav.ts';

export interface FliteJob {
  id: number;
  text: string;
  voice: string;
  /** flite's duration_stretch: 1 / speed. */
  stretch: number;
}

export type FliteReply = { id: number; samples: ArrayBuffer } | { id: number; error: string };

const { wasmPath, sampleRate } = workerData as { wasmPath: string; sampleRate: number };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-flite-'));
const quiet = fs.openSync('/dev/null', 'w');
let module: WebAssembly.Module | undefined;

function run(job: FliteJob): Buffer {
  module ??= new WebAssembly.Module(fs.readFileSync(wasmPath));
  const file = `piece-${job.id}.wav`;
  // A text that starts with "-" would be read as an option: a leading space keeps it text.
  const wasi = new WASI({
    version: 'preview1',
    args: ['flite', '-voice', job.voice, '--setf', `duration_stretch=${job.stretch}`, '-t', ` ${job.text}`, '-o', `/out/${file}`],
    env: {},
    preopens: { '/out': dir },
    stdout: quiet,
    stderr: quiet,
    returnOnExit: true,
  });
  const code = wasi.start(new WebAssembly.Instance(module, wasi.getImportObject() as WebAssembly.Imports));
  const out = path.join(dir, file);
  try {
    if (code !== 0) throw new Error(`flite exited with ${code}`);
    const pcm = parseWav(fs.readFileSync(out));
    return resample(pcm.samples, pcm.sampleRate, sampleRate);
  } finally {
    fs.rmSync(out, { force: true });
  }
}

parentPort!.on('message', (msg: FliteJob | 'stop') => {
  if (msg === 'stop') {
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  }
  let reply: FliteReply;
  try {
    const samples = run(msg);
    // A copy that owns its memory can be transferred rather than cloned.
    const owned = new Uint8Array(samples).buffer;
    reply = { id: msg.id, samples: owned };
    parentPort!.postMessage(reply, [owned]);
    return;
  } catch (e) {
    reply = { id: msg.id, error: (e as Error).message ?? String(e) };
  }
  parentPort!.postMessage(reply);
});

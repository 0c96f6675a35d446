// ESRGAN upscaling (a real neural super-resolution model, @upscalerjs/esrgan-slim's RDN weights, MIT) on TensorFlow.js's
// wasm backend, in a worker thread so the event loop never runs a convolution. One job runs at a time (the queue holds
// the others, 503 beyond it); the worker starts on first use, stops after a minute idle, and keeps the process alive
// only while it runs a job. A client that goes away stops its job: the worker is terminated and the next job starts a fresh one.
// The model's own factors are 2, 3 and 4; another factor (or an output reduced to the pixel limit) runs the next
// factor up and is resized to the exact size with lanczos3. Transparency is upscaled by sharp and kept.
import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import { AdmissionQueue } from '../queue.ts';
import { EngineError } from '../text/types.ts';
import type { ImageEngine, UpscaleJob } from './engine.ts';
import { decode, inspect } from './inputs.ts';
import type { UpscaleMessage, UpscaleReply } from './esrgan-worker.ts';

const WORKER_URL = new URL('./esrgan-worker.ts', import.meta.url);
const IDLE_MS = 60_000;

export interface EsrganOptions {
  tileSize?: number;
  maxQueue?: number;
  queueTimeoutMs?: number;
}

/** The worker thread and the one job it runs. */
class EsrganWorker {
  private worker: Worker | undefined;
  private pending: { id: number; resolve: (r: UpscaleReply) => void; reject: (e: Error) => void } | undefined;
  private idle: ReturnType<typeof setTimeout> | undefined;
  private nextId = 1;

  private start(): Worker {
    const w = new Worker(WORKER_URL);
    w.on('message', (reply: UpscaleReply) => {
      if (this.pending?.id === reply.id) this.pending.resolve(reply);
    });
    w.on('error', (e) => this.fail(w, new EngineError('failed', `the ESRGAN worker failed: ${e.message}`)));
    w.on('exit', () => this.fail(w, new EngineError('failed', 'the ESRGAN worker stopped')));
    return w;
  }

  private fail(w: Worker, e: Error): void {
    if (this.worker !== w) return;
    this.worker = undefined;
    const p = this.pending;
    this.pending = undefined;
    p?.reject(e);
  }

  async run(msg: Omit<UpscaleMessage, 'id'>, signal: AbortSignal): Promise<Extract<UpscaleReply, { ok: true }>> {
    clearTimeout(this.idle);
    this.worker ??= this.start();
    const worker = this.worker;
    const id = this.nextId++;
    const onAbort = () => {
      // The only way to stop a convolution midway: end the thread (a fresh one serves the next job).
      this.fail(worker, new EngineError('failed', 'aborted'));
      void worker.terminate();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // Referenced while it works (the process waits for the answer), unreferenced while idle.
    worker.ref();
    try {
      const reply = await new Promise<UpscaleReply>((resolve, reject) => {
        this.pending = { id, resolve, reject };
        worker.postMessage({ ...msg, id } satisfies UpscaleMessage, [msg.pixels.buffer as ArrayBuffer]);
      });
      if (!reply.ok) throw new EngineError('failed', `ESRGAN failed: ${reply.error}`);
      return reply;
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.pending = undefined;
      worker.unref();
      if (this.worker) {
        this.idle = setTimeout(() => this.close(), IDLE_MS);
        this.idle.unref();
      }
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.idle);
    const w = this.worker;
    this.worker = undefined;
    await w?.terminate();
  }
}

export function createEsrganEngine(opts: EsrganOptions = {}): ImageEngine {
  const worker = new EsrganWorker();
  // Two cores' worth of convolution is one job at a time; the queue bounds what waits.
  const queue = new AdmissionQueue(1, opts.maxQueue ?? 8, opts.queueTimeoutMs ?? 120_000);
  const tile = opts.tileSize ?? 256;
  return {
    router: 'esrgan-tfjs-wasm',
    async upscale(job: UpscaleJob) {
      const input = await inspect(job.image, 'image', { minPixels: 1, maxPixels: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER });
      const { width: W, height: H } = input;
      const factor = Math.min(4, Math.max(2, Math.ceil(Math.max(job.outWidth / W, job.outHeight / H) - 1e-9))) as 2 | 3 | 4;
      // Copied into a plain array: sharp's buffers live outside the JS heap and cannot be transferred to a thread.
      const rgb = await decode(input).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
      if (rgb.info.channels !== 3) throw new EngineError('failed', `expected RGB pixels, got ${rgb.info.channels} channels`);
      const release = await queue.acquire(job.signal);
      let reply;
      try {
        reply = await worker.run({ scale: factor, width: W, height: H, tile, pixels: new Uint8Array(rgb.data) }, job.signal);
      } finally {
        release();
      }
      const raw = { width: reply.width, height: reply.height, channels: 3 as const };
      let img = sharp(Buffer.from(reply.pixels.buffer, reply.pixels.byteOffset, reply.pixels.length), { raw });
      if (input.hasAlpha) {
        const alpha = await decode(input).extractChannel('alpha').resize(reply.width, reply.height, { kernel: 'lanczos3' }).raw().toBuffer();
        img = sharp(
          await img
            .joinChannel(alpha, { raw: { width: reply.width, height: reply.height, channels: 1 } })
            .raw()
            .toBuffer(),
          {
            raw: { ...raw, channels: 4 },
          },
        );
      }
      if (reply.width !== job.outWidth || reply.height !== job.outHeight) img = img.resize(job.outWidth, job.outHeight, { fit: 'fill', kernel: 'lanczos3' });
      const out = await img.raw().toBuffer({ resolveWithObject: true });
      return { bytes: out.data, raw: { width: out.info.width, height: out.info.height, channels: out.info.channels as 3 | 4 } };
    },
    close: () => worker.close(),
  };
}

// ESRGAN upscaling (a real neural super-resolution model, @upscalerjs/esrgan-slim's RDN weights, MIT) on onnxruntime's
// CPU kernels, in a worker process so the event loop never runs a convolution. One job runs at a time (the queue holds
// the others, 503 beyond it); the worker starts on first use, stops after a minute idle, and keeps the process alive
// only while it runs a job. A client that goes away stops its job: the worker is killed and the next job starts a fresh one.
// The model's own factors are 2, 3 and 4; another factor (or an output reduced to the pixel limit) runs the next
// factor up and is resized to the exact size with lanczos3. Transparency is upscaled by sharp and kept.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { AdmissionQueue } from '../queue.ts';
import { EngineError } from '../text/types.ts';
import type { ImageEngine, UpscaleJob } from './engine.ts';
import { decode, inspect } from './inputs.ts';
import type { UpscaleMessage, UpscaleReply } from './esrgan-worker.ts';

const WORKER_PATH = fileURLToPath(new URL('./esrgan-worker.ts', import.meta.url));
const IDLE_MS = 60_000;

export interface EsrganOptions {
  tileSize?: number;
  /** onnxruntime's threads for one job; 0 (the default) is one per physical core. */
  threads?: number;
  maxQueue?: number;
  queueTimeoutMs?: number;
}

/** The worker process and the one job it runs. */
class EsrganProcess {
  private child: ChildProcess | undefined;
  private pending: { id: number; resolve: (r: UpscaleReply) => void; reject: (e: Error) => void } | undefined;
  private idle: ReturnType<typeof setTimeout> | undefined;
  private nextId = 1;
  private readonly threads: number;

  constructor(threads: number) {
    this.threads = threads;
  }

  private start(): ChildProcess {
    // Structured clone over IPC: pixels travel as typed arrays, not JSON. No inherited flags (--test, --cpu-prof).
    const child = fork(WORKER_PATH, [String(this.threads)], { serialization: 'advanced', execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.on('message', (reply: UpscaleReply) => {
      if (this.pending?.id === reply.id) this.pending.resolve(reply);
    });
    child.on('error', (e) => this.fail(child, new EngineError('failed', `the ESRGAN worker failed: ${e.message}`)));
    child.on('exit', (code, signal) => this.fail(child, new EngineError('failed', `the ESRGAN worker stopped (${signal ?? `exit ${code}`})`)));
    return child;
  }

  private fail(child: ChildProcess, e: Error): void {
    if (this.child !== child) return;
    this.child = undefined;
    const p = this.pending;
    this.pending = undefined;
    p?.reject(e);
  }

  /** Referenced while it works (the server waits for the answer), unreferenced while idle. */
  private hold(child: ChildProcess, held: boolean): void {
    if (held) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  }

  async run(msg: Omit<UpscaleMessage, 'id'>, signal: AbortSignal): Promise<Extract<UpscaleReply, { ok: true }>> {
    clearTimeout(this.idle);
    this.child ??= this.start();
    const child = this.child;
    const id = this.nextId++;
    const onAbort = () => {
      // The only way to stop a job midway: end the process (a fresh one serves the next job).
      this.fail(child, new EngineError('failed', 'aborted'));
      child.kill('SIGKILL');
    };
    signal.addEventListener('abort', onAbort, { once: true });
    this.hold(child, true);
    try {
      const reply = await new Promise<UpscaleReply>((resolve, reject) => {
        this.pending = { id, resolve, reject };
        child.send({ ...msg, id } satisfies UpscaleMessage, (e) => e && this.fail(child, new EngineError('failed', `the ESRGAN worker is gone: ${e.message}`)));
      });
      if (!reply.ok) throw new EngineError('failed', `ESRGAN failed: ${reply.error}`);
      return reply;
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.pending = undefined;
      this.hold(child, false);
      if (this.child) {
        this.idle = setTimeout(() => this.close(), IDLE_MS);
        this.idle.unref();
      }
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.idle);
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // Held until it has gone: an idle (unreferenced) child would let the process end before its exit is seen.
      this.hold(child, true);
      child.kill('SIGKILL');
      await exited;
    }
  }
}

export function createEsrganEngine(opts: EsrganOptions = {}): ImageEngine {
  const worker = new EsrganProcess(opts.threads ?? 0);
  // Two cores' worth of convolution is one job at a time; the queue bounds what waits.
  const queue = new AdmissionQueue(1, opts.maxQueue ?? 8, opts.queueTimeoutMs ?? 120_000);
  const tile = opts.tileSize ?? 256;
  return {
    router: 'esrgan-onnxruntime',
    async upscale(job: UpscaleJob) {
      const input = await inspect(job.image, 'image', { minPixels: 1, maxPixels: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER });
      const { width: W, height: H } = input;
      const factor = Math.min(4, Math.max(2, Math.ceil(Math.max(job.outWidth / W, job.outHeight / H) - 1e-9))) as 2 | 3 | 4;
      // The IPC channel copies the pixels to the worker process (structured clone), so sharp's buffer is sent as it is.
      const rgb = await decode(input).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
      if (rgb.info.channels !== 3) throw new EngineError('failed', `expected RGB pixels, got ${rgb.info.channels} channels`);
      const release = await queue.acquire(job.signal);
      let reply;
      try {
        reply = await worker.run(
          { scale: factor, width: W, height: H, tile, pixels: new Uint8Array(rgb.data.buffer, rgb.data.byteOffset, rgb.data.length) },
          job.signal,
        );
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

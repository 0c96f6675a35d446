// The demo video engine (catalogue kind `demo-video`): a clip made from the prompt and seed in a worker thread and
// encoded by Debian's ffmpeg (demo-worker.ts). Named and described as a demo in /models: it draws moving colour
// fields, it does not depict the prompt. Image-to-video blends the image under the pattern; a soundtrack is the
// request's audio or a tone.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { JobOutput, RunContext } from '../../jobs/types.ts';
import type { DemoJob } from './demo-worker.ts';
import type { VideoRequest } from './request.ts';

const WORKER = new URL('./demo-worker.ts', import.meta.url);

/** Renders `job` into `output`; the signal stops the worker and ffmpeg. */
export function renderDemo(job: DemoJob, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { workerData: job });
    let settled = false;
    const finish = (e?: unknown) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (e) reject(e);
      else resolve();
    };
    const onAbort = () => {
      worker.postMessage('abort');
      // A worker that does not stop by itself (stuck in a frame) is ended.
      setTimeout(() => void worker.terminate(), 2_000).unref();
      finish(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: { type: string; message?: string }) => {
      if (m.type === 'done') finish();
      else if (m.type === 'error') finish(new Error(`demo video: ${m.message}`));
      void worker.terminate();
    });
    worker.once('error', (e) => finish(e));
    worker.once('exit', (code) => finish(code === 0 ? undefined : new Error(`demo video worker exited ${code}`)));
  });
}

/** Runs one demo job: the clip in the attempt's work folder, billed by the seconds it lasts. */
export async function runDemo(req: VideoRequest, fps: number, ctx: RunContext): Promise<JobOutput> {
  const output = path.join(ctx.workDir, 'demo.mp4');
  await renderDemo(
    {
      width: req.width,
      height: req.height,
      fps,
      seconds: req.seconds,
      prompt: req.prompt,
      seed: req.seed,
      audio: req.audio,
      image: req.inputs.image?.path,
      audioFile: req.inputs.audio?.path,
      output,
    },
    ctx.signal,
  );
  return { file: output, contentType: 'video/mp4', quantities: { seconds: req.seconds } };
}

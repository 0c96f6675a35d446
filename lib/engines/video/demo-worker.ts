// The demo video engine's worker thread: draws the frames (frames.ts) and pipes them to ffmpeg, which encodes H.264
// (with an AAC soundtrack: a tone, or the request's audio) into an MP4. The server's event loop only hears the outcome.
// Messages in: `abort`. Out: `{ type: 'done' }` or `{ type: 'error', message }`.
import { spawn } from 'node:child_process';
import { limitedCommand } from '../limited-spawn.ts';
import { parentPort, workerData } from 'node:worker_threads';
import { frameDrawer, toneOf } from './frames.ts';

export interface DemoJob {
  width: number;
  height: number;
  fps: number;
  seconds: number;
  prompt: string;
  seed: number;
  audio: boolean;
  /** Blended under the pattern (image-to-video). */
  image?: string;
  /** The soundtrack instead of a tone. */
  audioFile?: string;
  output: string;
}

function ffmpegArgs(j: DemoJob): string[] {
  const args = ['-hide_banner', '-loglevel', 'error', '-y'];
  args.push('-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${j.width}x${j.height}`, '-r', String(j.fps), '-i', 'pipe:0');
  let next = 1;
  if (j.image) {
    args.push('-loop', '1', '-framerate', String(j.fps), '-i', j.image);
    next++;
  }
  const audioIndex = j.audio ? next : -1;
  if (j.audio && j.audioFile) args.push('-i', j.audioFile);
  else if (j.audio) args.push('-f', 'lavfi', '-i', `sine=frequency=${toneOf(j.prompt, j.seed)}:sample_rate=44100`);
  if (j.image) {
    const fit = `scale=${j.width}:${j.height}:force_original_aspect_ratio=increase,crop=${j.width}:${j.height},format=rgb24`;
    args.push('-filter_complex', `[1:v]${fit}[bg];[0:v][bg]blend=all_mode=average:shortest=1,format=yuv420p[v]`, '-map', '[v]');
  } else args.push('-map', '0:v');
  if (audioIndex >= 0) args.push('-map', `${audioIndex}:a:0`, '-c:a', 'aac', '-b:a', '96k');
  else args.push('-an');
  args.push('-t', String(j.seconds), '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', j.output);
  return args;
}

/**
 * The CPU seconds an encode may take: generous for the clip's length and size (a 720p second encodes in well under a
 * CPU second here), so only a decoder spinning on a hostile input reaches it.
 */
function encodeCpuSeconds(j: DemoJob): number {
  return 30 + j.seconds * 10 * Math.max(1, (j.width * j.height) / (1280 * 720));
}

async function render(j: DemoJob, aborted: () => boolean): Promise<void> {
  const [cmd, args] = limitedCommand('ffmpeg', ffmpegArgs(j), encodeCpuSeconds(j));
  const ffmpeg = spawn(cmd, args, { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  ffmpeg.stderr.on('data', (b: Buffer) => (stderr = (stderr + b).slice(-2000)));
  const exited = new Promise<number | null>((resolve, reject) => {
    ffmpeg.once('error', reject);
    ffmpeg.once('close', resolve);
  });
  parentPort!.on('message', (m) => m === 'abort' && ffmpeg.kill('SIGKILL'));
  // ffmpeg closing its input early (an error) must end the loop, not throw EPIPE at the process.
  ffmpeg.stdin.on('error', () => {});
  const draw = frameDrawer(j);
  const frames = j.seconds * j.fps;
  for (let i = 0; i < frames && !aborted() && ffmpeg.exitCode === null; i++) {
    if (!ffmpeg.stdin.write(draw(i))) {
      await new Promise<void>((resolve) => {
        const done = () => {
          ffmpeg.stdin.off('drain', done);
          ffmpeg.stdin.off('close', done);
          resolve();
        };
        ffmpeg.stdin.on('drain', done);
        ffmpeg.stdin.on('close', done);
      });
    }
  }
  ffmpeg.stdin.end();
  const code = await exited;
  if (aborted()) throw new Error('aborted');
  if (code !== 0) throw new Error(`ffmpeg exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
}

if (parentPort) {
  let stop = false;
  parentPort.on('message', (m) => {
    if (m === 'abort') stop = true;
  });
  render(workerData as DemoJob, () => stop).then(
    () => parentPort!.postMessage({ type: 'done' }),
    (e: Error) => parentPort!.postMessage({ type: 'error', message: e.message }),
  );
}

// Debian's ffmpeg and ffprobe (installed by scripts/setup.sh), run as child processes: encoding and probing never
// block the event loop. A signal kills the process.
import { spawn } from 'node:child_process';
import { limitedCommand } from '../limited-spawn.ts';

export interface ProbeResult {
  /** Seconds, from the container. */
  duration: number;
  streams: { codec_type: string; codec_name: string; width?: number; height?: number }[];
}

/** Runs a program to completion; rejects with the tail of its stderr when it fails. */
export function runTool(program: string, args: string[], opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<string> {
  // Wall time as given (default 10 minutes) and as much CPU time: a decoder spinning on a hostile file stops either way.
  const timeoutMs = opts.timeoutMs ?? 600_000;
  return new Promise((resolve, reject) => {
    const [cmd, argv] = limitedCommand(program, args, timeoutMs / 1000);
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], signal: opts.signal, timeout: timeoutMs, killSignal: 'SIGKILL' });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b));
    child.stderr.on('data', (b: Buffer) => (err = (err + b).slice(-4000)));
    child.once('error', reject);
    child.once('close', (code, sig) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${program} ${sig ? `was killed (${sig})` : `exited ${code}`}: ${err.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

/** Duration and streams of a media file; rejects when ffprobe cannot read it. */
export async function probe(file: string, signal?: AbortSignal): Promise<ProbeResult> {
  const out = await runTool('ffprobe', ['-v', 'error', '-show_entries', 'format=duration:stream=codec_type,codec_name,width,height', '-of', 'json', file], {
    signal,
    timeoutMs: 30_000,
  });
  const j = JSON.parse(out) as { format?: { duration?: string }; streams?: ProbeResult['streams'] };
  return { duration: Number(j.format?.duration ?? Number.NaN), streams: j.streams ?? [] };
}

/** Re-encodes any video ffmpeg reads to H.264/AAC MP4 (an upstream that answered WebM or GIF). */
export function toMp4(input: string, output: string, signal?: AbortSignal): Promise<string> {
  return runTool(
    'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-i',
      input,
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      '-movflags',
      '+faststart',
      output,
    ],
    { signal },
  );
}

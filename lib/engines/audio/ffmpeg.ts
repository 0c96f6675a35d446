// ffmpeg for the audio engines: any upload or media file → 16 kHz mono 16-bit WAV (what pocketsphinx reads, and the
// measure of the seconds billed), and 16-bit mono PCM → mp3, opus, aac or flac as the PCM arrives, so a stream's
// first sentence is playing while the next is made. WAV and raw PCM need no ffmpeg (wav.ts writes them).
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import type { Writable } from 'node:stream';
import type { SpeechFormat } from '../../models/audio-models.ts';
import { limitedCommand } from '../limited-spawn.ts';
import { MissingBinary, missingUnderLimit, ProcessFailed, runProcess } from './processes.ts';
import { wavHeader } from './wav.ts';

/** What pocketsphinx decodes (and what every transcription is measured in). */
export const DECODE_RATE = 16_000;
/** CPU seconds a decode may use: a base, plus a tenth of the longest audio it may read. */
const DECODE_CPU_BASE_S = 20;
/** CPU seconds an encoder may use: speech of the longest text is a few minutes, encoded in seconds. */
const ENCODE_CPU_S = 120;

export const CONTENT_TYPES: Record<SpeechFormat, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

/** Formats written without ffmpeg. */
export const needsFfmpeg = (format: SpeechFormat): boolean => format !== 'wav' && format !== 'pcm';

// Speech is narrow-band: these bitrates keep it clear at a fraction of music's.
const CODEC_ARGS: Record<Exclude<SpeechFormat, 'wav' | 'pcm'>, string[]> = {
  mp3: ['-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'],
  opus: ['-c:a', 'libopus', '-b:a', '32k', '-f', 'ogg'],
  aac: ['-c:a', 'aac', '-b:a', '64k', '-f', 'adts'],
  flac: ['-c:a', 'flac', '-f', 'flac'],
};

export interface DecodedAudio {
  /** The 16 kHz mono WAV file written. */
  path: string;
  /** Its length in seconds. */
  seconds: number;
  /** Whether the source was longer than the limit (and was cut there). */
  truncated: boolean;
}

/**
 * Decodes the audio track of `input` (a file: MP4 and M4A need a seekable input) into a 16 kHz mono WAV at `output`,
 * at most `maxSeconds` of it plus a little, so a source that is too long is known to be too long without decoding
 * all of it. `inputArgs` name the demuxer (sniff.ts), so ffmpeg never guesses. Throws ProcessFailed when ffmpeg
 * finds no audio it can read.
 */
export async function decodeToWav(
  ffmpeg: string,
  input: string,
  output: string,
  opts: { maxSeconds: number; inputArgs?: string[]; signal?: AbortSignal },
): Promise<DecodedAudio> {
  const args = ['-nostdin', '-hide_banner', '-loglevel', 'error', ...(opts.inputArgs ?? []), '-i', input];
  // The first audio stream only: a file without one fails here rather than transcribing silence.
  args.push('-map', '0:a:0', '-vn', '-sn', '-dn', '-ac', '1', '-ar', String(DECODE_RATE), '-c:a', 'pcm_s16le');
  args.push('-map_metadata', '-1', '-bitexact', '-t', String(opts.maxSeconds + 1), '-f', 'wav', '-y', output);
  // Decoding an audio track takes a small fraction of its length in CPU time; a file that makes ffmpeg spin is stopped.
  await runProcess(ffmpeg, args, { signal: opts.signal, cpuSeconds: DECODE_CPU_BASE_S + opts.maxSeconds / 10 });
  const bytes = (await fs.stat(output)).size;
  const seconds = Math.max(0, bytes - 44) / 2 / DECODE_RATE;
  return { path: output, seconds: Math.min(seconds, opts.maxSeconds), truncated: seconds > opts.maxSeconds };
}

/**
 * Encodes 16-bit mono PCM at `sampleRate` as it arrives from `pcm`, yielding the encoded bytes as ffmpeg writes them.
 * WAV is the streaming form (sizes unknown) unless `exactWav`, which waits for all of the PCM to write exact sizes.
 * Stopping the iteration early (a client gone) kills the encoder.
 */
export async function* encodePcm(
  ffmpeg: string,
  format: SpeechFormat,
  sampleRate: number,
  pcm: AsyncIterable<Buffer>,
  opts: { exactWav?: boolean } = {},
): AsyncGenerator<Buffer> {
  if (format === 'pcm') {
    yield* pcm;
    return;
  }
  if (format === 'wav') {
    if (opts.exactWav) {
      const all: Buffer[] = [];
      for await (const piece of pcm) all.push(piece);
      const data = Buffer.concat(all);
      yield Buffer.concat([wavHeader(sampleRate, data.length), data]);
      return;
    }
    yield wavHeader(sampleRate);
    yield* pcm;
    return;
  }
  const args = ['-hide_banner', '-loglevel', 'error', '-f', 's16le', '-ar', String(sampleRate), '-ac', '1', '-i', 'pipe:0'];
  args.push(...CODEC_ARGS[format], '-flush_packets', '1', 'pipe:1');
  const [command, commandArgs] = limitedCommand(ffmpeg, args, ENCODE_CPU_S);
  const child = spawn(command, commandArgs, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'ENOENT' || e.code === 'EACCES' ? new MissingBinary(ffmpeg) : e));
    child.once('close', (code) => resolve(code));
  });
  exited.catch(() => {}); // read below
  child.stdin.on('error', () => {}); // an encoder that died is reported by its exit status
  // Feeds the encoder while its output is read; a failure of the source is kept and rethrown after.
  let feedError: unknown;
  const feeding = (async () => {
    try {
      for await (const piece of pcm) {
        if (child.stdin.destroyed) return;
        if (!child.stdin.write(piece)) await writable(child.stdin);
      }
    } catch (e) {
      feedError = e;
      child.kill('SIGKILL');
    } finally {
      child.stdin.end();
    }
  })();
  let finished = false;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) yield chunk;
    await feeding;
    if (feedError) throw feedError;
    const code = await exited;
    if (command !== ffmpeg && missingUnderLimit(code, stderr)) throw new MissingBinary(ffmpeg);
    if (code !== 0) throw new ProcessFailed(ffmpeg, code, stderr);
    finished = true;
  } finally {
    if (!finished) {
      child.kill('SIGKILL');
      await feeding;
      await exited.catch(() => {});
    }
  }
}

/**
 * Resolves when the encoder's input can take more (or has closed); the other listener is removed, so the many waits
 * of a long text leave none behind.
 */
function writable(stdin: Writable): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      stdin.off('drain', done);
      stdin.off('close', done);
      resolve();
    };
    stdin.once('drain', done);
    stdin.once('close', done);
  });
}

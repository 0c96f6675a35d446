// Helpers of the video tests: poll a job until it is done, read a clip with ffprobe, and make a reference image.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Retrieved {
  status: number;
  contentType: string;
  /** The JSON answer (progress or error), when it was JSON. */
  json?: any;
  /** The media bytes, when they came. */
  bytes?: Buffer;
  /** Every progress answer seen while polling. */
  progress: any[];
}

export async function retrieveOnce(base: string, headers: Record<string, string>, body: Record<string, unknown>): Promise<Retrieved> {
  const res = await fetch(`${base}/video/retrieve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const contentType = res.headers.get('content-type') ?? '';
  if (contentType.startsWith('application/json')) return { status: res.status, contentType, json: await res.json(), progress: [] };
  return { status: res.status, contentType, bytes: Buffer.from(await res.arrayBuffer()), progress: [] };
}

/** Polls retrieve until the answer is no longer "PROCESSING" (the bytes, or an error), within `timeoutMs`. */
export async function retrieveWhenDone(
  base: string,
  key: string,
  model: string,
  queueId: string,
  opts: { timeoutMs?: number; everyMs?: number; extra?: Record<string, unknown>; headers?: () => Promise<Record<string, string>> } = {},
): Promise<Retrieved> {
  const deadline = Date.now() + (opts.timeoutMs ?? 90_000);
  const progress: any[] = [];
  for (;;) {
    const headers = opts.headers ? await opts.headers() : { authorization: `Bearer ${key}` };
    const r = await retrieveOnce(base, headers, { model, queue_id: queueId, ...opts.extra });
    if (!(r.status === 200 && r.json?.status === 'PROCESSING')) return { ...r, progress };
    progress.push(r.json);
    if (Date.now() > deadline) throw new Error(`job ${queueId} still processing after ${opts.timeoutMs ?? 90_000} ms`);
    await new Promise((resolve) => setTimeout(resolve, opts.everyMs ?? 150));
  }
}

export interface ClipInfo {
  duration: number;
  video?: { codec_name: string; width: number; height: number };
  audio?: { codec_name: string };
}

/** ffprobe's view of a clip's bytes. */
export async function probeClip(bytes: Buffer): Promise<ClipInfo> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-clip-')), 'clip.mp4');
  fs.writeFileSync(file, bytes);
  try {
    const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration:stream=codec_type,codec_name,width,height', '-of', 'json', file]);
    const j = JSON.parse(stdout);
    const streams: any[] = j.streams ?? [];
    return { duration: Number(j.format?.duration), video: streams.find((s) => s.codec_type === 'video'), audio: streams.find((s) => s.codec_type === 'audio') };
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

/** A one-colour PNG of this size, made by ffmpeg: a reference image for a clip. */
export function solidPng(colour: string, width: number, height: number): Buffer {
  return execFileSync('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    `color=c=${colour}:s=${width}x${height}`,
    '-frames:v',
    '1',
    '-f',
    'image2pipe',
    '-c:v',
    'png',
    '-',
  ]);
}

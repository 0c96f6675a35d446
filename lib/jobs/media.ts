// Where jobs keep files, under LAGOON_MEDIA_DIR (default: the data dir's `media/`; with several instances, a folder
// they all mount): `<kind>/<job id>.<ext>` for results, `inputs/<job id>/` for what a request referenced,
// `work/<job id>-<owner>/` for an attempt's scratch files. Results are written in `work/` and renamed into place (the
// same volume), so a reader never sees half a file; every call here is asynchronous.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ApiError } from '../api/errors.ts';
import { parseDataUrl } from '../files/data-url.ts';
import { safeFetch } from '../net/safe-fetch.ts';
import type { FetchReference } from './types.ts';

const EXTENSIONS: Record<string, string> = {
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/flac': 'flac',
  'audio/ogg': 'ogg',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

export class MediaStore {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  /** Creates the folders; `soleOwner` (SQLite: no other server uses them) also clears scratch files a crash left. */
  async init(soleOwner: boolean): Promise<void> {
    if (soleOwner) await fs.rm(path.join(this.root, 'work'), { recursive: true, force: true });
    await fs.mkdir(path.join(this.root, 'work'), { recursive: true });
    await fs.mkdir(path.join(this.root, 'inputs'), { recursive: true });
  }

  /**
   * Removes leftovers of attempts and requests that died with their process: scratch folders older than `workMs`,
   * and input folders older than an hour whose job is no longer waiting for them (`needed` says which still are).
   */
  async removeStale(workMs: number, needed: (jobId: string) => Promise<boolean>): Promise<void> {
    const now = Date.now();
    const old = async (dir: string, ms: number) => {
      const entries = await fs.readdir(dir).catch(() => [] as string[]);
      const out: string[] = [];
      for (const name of entries) {
        const st = await fs.stat(path.join(dir, name)).catch(() => undefined);
        if (st && now - st.mtimeMs > ms) out.push(name);
      }
      return out;
    };
    for (const name of await old(path.join(this.root, 'work'), workMs)) await this.removeDir(path.join(this.root, 'work', name));
    for (const name of await old(path.join(this.root, 'inputs'), 3_600_000)) if (!(await needed(name))) await this.removeInputs(name);
  }

  inputsDir(jobId: string): string {
    return path.join(this.root, 'inputs', jobId);
  }

  async workDir(jobId: string, owner: string): Promise<string> {
    const dir = path.join(this.root, 'work', `${jobId}-${owner}-${randomBytes(3).toString('hex')}`);
    await fs.mkdir(dir, { recursive: true });
    return dir;
  }

  /** Moves an attempt's output into place; returns where, and its size. */
  async keep(kind: string, jobId: string, file: string, contentType: string): Promise<{ path: string; bytes: number }> {
    const dir = path.join(this.root, kind);
    await fs.mkdir(dir, { recursive: true });
    const target = path.join(dir, `${jobId}.${EXTENSIONS[contentType] ?? 'bin'}`);
    await fs.rename(file, target);
    const { size } = await fs.stat(target);
    // Stored relative to the root: the folder may be mounted elsewhere on another instance.
    return { path: path.relative(this.root, target), bytes: size };
  }

  /** The absolute path of a stored result (the job row keeps it relative to the root). */
  resolve(stored: string): string {
    const abs = path.resolve(this.root, stored);
    if (!abs.startsWith(this.root + path.sep)) throw new Error(`media path outside the media folder: ${stored}`);
    return abs;
  }

  async remove(stored: string | null): Promise<void> {
    if (stored) await fs.rm(this.resolve(stored), { force: true });
  }

  async removeDir(dir: string): Promise<void> {
    await fs.rm(dir, { recursive: true, force: true });
  }

  /** The job's inputs, gone once the job has ended. */
  removeInputs(jobId: string): Promise<void> {
    return this.removeDir(this.inputsDir(jobId));
  }

  /** The reference fetcher for one job's request: data: URLs and http(s) URLs through the safe fetcher. */
  fetcher(jobId: string, opts: { allowHosts: string[]; signal: AbortSignal }): FetchReference {
    let n = 0;
    return async (url, { field, maxBytes, accept }) => {
      let data: Buffer;
      let type: string | undefined;
      if (/^data:/i.test(url)) {
        const parsed = parseDataUrl(url);
        [data, type] = [parsed.data, parsed.mimeType];
        if (data.length > maxBytes) throw new ApiError('FILE_TOO_LARGE', `${field} is larger than ${Math.floor(maxBytes / 1048576)} MB`, { param: field });
      } else if (/^https?:\/\//i.test(url)) {
        const res = await safeFetch(url, { maxBytes, allowHosts: opts.allowHosts, signal: opts.signal, timeoutMs: 30_000 }).catch((e) => {
          throw e instanceof ApiError ? new ApiError(e.code, `${field}: ${e.message}`, { param: field }) : e;
        });
        if (res.status < 200 || res.status >= 300) throw new ApiError('INVALID_REQUEST', `${field}: the URL answered HTTP ${res.status}`, { param: field });
        [data, type] = [res.body, res.contentType?.split(';')[0].trim().toLowerCase()];
      } else {
        throw new ApiError('INVALID_REQUEST', `${field} must be an http(s) URL or a data: URL`, { param: field });
      }
      // Images must be what their bytes say (no decoder takes a mislabelled one); audio and video are probed later.
      const imagesOnly = accept.every((a) => a.startsWith('image/'));
      const sniffed = sniff(data) ?? (imagesOnly ? undefined : type) ?? 'application/octet-stream';
      if (!accept.some((a) => sniffed.startsWith(a))) {
        throw new ApiError('UNSUPPORTED_CONTENT', `${field} is ${sniffed}; expected ${accept.map((a) => (a.endsWith('/') ? `${a}*` : a)).join(' or ')}`, {
          param: field,
        });
      }
      const dir = this.inputsDir(jobId);
      await fs.mkdir(dir, { recursive: true });
      const file = path.join(dir, `${field}-${n++}.${EXTENSIONS[sniffed] ?? 'bin'}`);
      await fs.writeFile(file, data);
      return { path: file, contentType: sniffed, bytes: data.length };
    };
  }
}

/** The media type from the first bytes, for the formats references may be in (a server's Content-Type may lie). */
export function sniff(b: Buffer): string | undefined {
  const ascii = (from: number, to: number) => b.subarray(from, to).toString('latin1');
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  if (b.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'audio/wav';
  if (b.length >= 4 && ascii(0, 4) === 'fLaC') return 'audio/flac';
  if (b.length >= 4 && ascii(0, 4) === 'OggS') return 'audio/ogg';
  if (b.length >= 3 && (ascii(0, 3) === 'ID3' || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0))) return 'audio/mpeg';
  if (b.length >= 12 && ascii(4, 8) === 'ftyp') return ascii(8, 10) === 'qt' ? 'video/quicktime' : 'video/mp4';
  if (b.length >= 4 && b.readUInt32BE(0) === 0x1a45dfa3) return 'video/webm';
  return undefined;
}

// PNG text chunks, where character cards travel: `chara` (Card V2, base64 JSON) and `ccv3` (Card V3). The reader walks
// the chunk list with bounds checks and verifies each text chunk's CRC (zlib.crc32); iTXt text may be deflated and is
// inflated with an output cap. The writer puts text chunks before IEND, dropping older ones with the same keyword.
import zlib from 'node:zlib';
import { ApiError } from '../api/errors.ts';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export const isPng = (buf: Buffer): boolean => buf.length >= 8 && buf.subarray(0, 8).equals(SIGNATURE);

const bad = (why: string) => new ApiError('INVALID_REQUEST', `The PNG file is malformed: ${why}`);

interface Chunk {
  type: string;
  data: Buffer;
  /** Offset of the chunk's length field, and the offset after its CRC. */
  start: number;
  end: number;
}

function* chunks(buf: Buffer): Generator<Chunk> {
  if (!isPng(buf)) throw bad('it does not start with the PNG signature');
  let at = 8;
  while (at < buf.length) {
    if (at + 12 > buf.length) throw bad('a chunk is cut short');
    const length = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    if (!/^[A-Za-z]{4}$/.test(type)) throw bad('a chunk has an invalid type');
    const end = at + 12 + length;
    if (end > buf.length) throw bad(`chunk ${type} runs past the end of the file`);
    yield { type, data: buf.subarray(at + 8, at + 8 + length), start: at, end };
    if (type === 'IEND') return;
    at = end;
  }
  throw bad('it has no IEND chunk');
}

function crcOk(buf: Buffer, c: Chunk): boolean {
  const stored = buf.readUInt32BE(c.end - 4);
  return zlib.crc32(buf.subarray(c.start + 4, c.end - 4)) === stored;
}

/** tEXt: keyword NUL text (Latin-1). iTXt: keyword NUL flag method language NUL translated NUL text (UTF-8). */
function parseText(c: Chunk, maxBytes: number): { keyword: string; text: string } | undefined {
  const nul = c.data.indexOf(0);
  if (nul < 1 || nul > 79) return undefined;
  const keyword = c.data.toString('latin1', 0, nul);
  if (c.type === 'tEXt') return { keyword, text: c.data.toString('latin1', nul + 1) };
  const compressed = c.data[nul + 1] === 1;
  const langEnd = c.data.indexOf(0, nul + 3);
  const transEnd = langEnd < 0 ? -1 : c.data.indexOf(0, langEnd + 1);
  if (transEnd < 0) throw bad(`iTXt chunk ${keyword} is malformed`);
  let body = c.data.subarray(transEnd + 1);
  if (compressed) {
    try {
      body = zlib.inflateSync(body, { maxOutputLength: maxBytes });
    } catch {
      throw bad(`iTXt chunk ${keyword} does not inflate (or inflates past ${maxBytes} bytes)`);
    }
  }
  return { keyword, text: body.toString('utf8') };
}

/** The text chunks whose keyword is in `keywords` (lower-cased keys), the first of each kept. */
export function readTextChunks(buf: Buffer, keywords: string[], maxBytes: number): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of chunks(buf)) {
    if (c.type !== 'tEXt' && c.type !== 'iTXt') continue;
    const t = parseText(c, maxBytes);
    if (!t) continue;
    const key = t.keyword.toLowerCase();
    if (!keywords.includes(key) || out.has(key)) continue;
    if (!crcOk(buf, c)) throw bad(`the ${t.keyword} chunk's checksum is wrong`);
    out.set(key, t.text);
  }
  return out;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** `png` with tEXt chunks `keyword` → ASCII `text` (base64 card JSON) before IEND; existing chunks of those keywords go. */
export function withTextChunks(png: Buffer, entries: { keyword: string; text: string }[]): Buffer {
  const drop = new Set(entries.map((e) => e.keyword.toLowerCase()));
  const parts: Buffer[] = [SIGNATURE];
  for (const c of chunks(png)) {
    if (c.type === 'IEND') {
      for (const e of entries) parts.push(chunk('tEXt', Buffer.concat([Buffer.from(e.keyword, 'latin1'), Buffer.from([0]), Buffer.from(e.text, 'latin1')])));
    } else if (c.type === 'tEXt' || c.type === 'iTXt') {
      const nul = c.data.indexOf(0);
      if (nul > 0 && drop.has(c.data.toString('latin1', 0, nul).toLowerCase())) continue;
    }
    parts.push(png.subarray(c.start, c.end));
  }
  return Buffer.concat(parts);
}

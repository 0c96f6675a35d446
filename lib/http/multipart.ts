// multipart/form-data request bodies (RFC 7578), for the endpoints that take uploads (images, audio). Strict and
// bounded: the body is read whole under a byte cap (413 beyond it), then split on its boundary with Buffer.indexOf;
// the number of files and fields, each field's size and each part's header block are capped, and anything malformed
// (no boundary, a truncated body, a part without a name, a field given twice, text that is not UTF-8) is a 400 that
// says what is wrong. Files keep their bytes as sent; what they must contain is the caller's to check.
import { ApiError } from '../api/errors.ts';
import { readBody, tooLarge } from './body.ts';
import type { RequestCtx } from './context.ts';

export interface MultipartFile {
  /** The form field's name. */
  name: string;
  /** The client's file name (may be empty). */
  filename: string;
  /** The part's Content-Type, lowercased without parameters; application/octet-stream when the part has none. */
  contentType: string;
  bytes: Buffer;
}

export interface MultipartForm {
  /** Text fields by name (a name given twice is a 400). */
  fields: Record<string, string>;
  /** File parts in body order; several may share a name (`images`, `images[]`). */
  files: MultipartFile[];
  /** The values of the `repeatable` fields given, in body order. */
  lists: Record<string, string[]>;
}

export interface MultipartLimits {
  /** The whole body (also capped by the server's LAGOON_MAX_BODY_BYTES when read from a request). */
  maxBytes: number;
  maxFiles: number;
  /** Text fields (default 64). */
  maxFields?: number;
  /** Bytes of one text field (default 1 MiB). */
  maxFieldBytes?: number;
  /** Text fields that may be given more than once (OpenAI's `timestamp_granularities[]`): collected in `lists`. */
  repeatable?: readonly string[];
}

const DEFAULT_MAX_FIELDS = 64;
const DEFAULT_MAX_FIELD_BYTES = 1024 * 1024;
/** The header block of one part: a few short headers. */
const MAX_PART_HEADER_BYTES = 8 * 1024;

const bad = (why: string) => new ApiError('INVALID_REQUEST', `Invalid multipart body: ${why}`);

/** Whether a Content-Type header is multipart/form-data. */
export function isMultipart(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0].trim().toLowerCase() === 'multipart/form-data';
}

/** The request's multipart body: 415 unless multipart/form-data, 413 past the byte cap, 400 when malformed. */
export async function readMultipart(ctx: RequestCtx, limits: MultipartLimits): Promise<MultipartForm> {
  const type = ctx.req.headers['content-type'];
  if (!isMultipart(type)) {
    throw new ApiError('INVALID_CONTENT_TYPE', `Invalid request content-type: expected multipart/form-data, got ${type ?? 'none'}`);
  }
  const maxBytes = Math.min(limits.maxBytes, ctx.svc.config.maxBodyBytes);
  if (Number(ctx.req.headers['content-length']) > maxBytes) throw tooLarge(maxBytes);
  const body = await readBody(ctx.req, maxBytes);
  return parseMultipart(body, type as string, { ...limits, maxBytes });
}

/** Splits a multipart/form-data body; `contentType` is the request's header (it carries the boundary). */
export function parseMultipart(body: Buffer, contentType: string, limits: MultipartLimits): MultipartForm {
  if (body.length > limits.maxBytes) throw tooLarge(limits.maxBytes);
  const boundary = boundaryOf(contentType);
  const maxFields = limits.maxFields ?? DEFAULT_MAX_FIELDS;
  const maxFieldBytes = limits.maxFieldBytes ?? DEFAULT_MAX_FIELD_BYTES;
  const dash = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);

  // The first boundary opens the body, or follows a preamble that ends in CRLF.
  let at = 0;
  if (!body.subarray(0, dash.length).equals(dash)) {
    const first = body.indexOf(delimiter);
    if (first < 0) throw bad('the boundary never occurs');
    at = first + 2;
  }
  const fields = new Map<string, string>();
  const lists = new Map<string, string[]>();
  let listed = 0;
  const files: MultipartFile[] = [];
  for (;;) {
    let cursor = at + dash.length;
    if (body[cursor] === 0x2d && body[cursor + 1] === 0x2d) break; // "--": the closing boundary
    // Transport padding (spaces, tabs) may follow a boundary before its CRLF.
    while (body[cursor] === 0x20 || body[cursor] === 0x09) cursor++;
    if (body[cursor] !== 0x0d || body[cursor + 1] !== 0x0a)
      throw bad(cursor >= body.length ? 'the body ends without its closing boundary' : 'a boundary line is malformed');
    cursor += 2;
    const headerEnd = body.indexOf('\r\n\r\n', cursor);
    if (headerEnd < 0 || headerEnd - cursor > MAX_PART_HEADER_BYTES)
      throw bad(headerEnd < 0 ? 'a part has no end of headers' : 'a part has too large a header block');
    const headers = partHeaders(body.subarray(cursor, headerEnd).toString('latin1'));
    const contentStart = headerEnd + 4;
    const next = body.indexOf(delimiter, contentStart);
    if (next < 0) throw bad('the body ends without its closing boundary');
    const content = body.subarray(contentStart, next);
    const { name, filename } = headers;
    if (filename !== undefined) {
      if (files.length >= limits.maxFiles) throw new ApiError('INVALID_REQUEST', `At most ${limits.maxFiles} file(s) may be uploaded`);
      files.push({ name, filename, contentType: headers.contentType ?? 'application/octet-stream', bytes: content });
    } else {
      if (fields.size + listed >= maxFields) throw bad(`more than ${maxFields} fields`);
      const repeatable = limits.repeatable?.includes(name) === true;
      if (fields.has(name) && !repeatable) throw new ApiError('INVALID_REQUEST', `The field ${name} is given more than once`, { param: name });
      if (content.length > maxFieldBytes) throw new ApiError('INVALID_REQUEST', `The field ${name} is larger than ${maxFieldBytes} bytes`, { param: name });
      if (repeatable) {
        lists.set(name, [...(lists.get(name) ?? []), utf8(content, name)]);
        listed++;
      } else fields.set(name, utf8(content, name));
    }
    at = next + 2;
  }
  return { fields: Object.fromEntries(fields), files, lists: Object.fromEntries(lists) };
}

function boundaryOf(contentType: string): string {
  const params = splitParams(contentType).slice(1);
  const b = params.find(([k]) => k === 'boundary')?.[1];
  if (!b) throw bad('the Content-Type has no boundary');
  // RFC 2046: 1 to 70 characters from a restricted set, not ending in a space.
  if (b.length > 70 || !/^[0-9A-Za-z'()+_,\-./:=? ]+$/.test(b) || b.endsWith(' ')) throw bad('the boundary is not a valid multipart boundary');
  return b;
}

interface PartHeaders {
  name: string;
  filename: string | undefined;
  contentType: string | undefined;
}

function partHeaders(block: string): PartHeaders {
  let disposition: string | undefined;
  let contentType: string | undefined;
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw bad('a part header is malformed');
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'content-disposition') disposition = value;
    else if (key === 'content-type') contentType = value.split(';')[0].trim().toLowerCase();
  }
  if (!disposition) throw bad('a part has no Content-Disposition header');
  const [kind, ...params] = splitParams(disposition);
  if (kind[0] !== 'form-data') throw bad('a part is not form-data');
  const get = (k: string) => params.find(([key]) => key === k)?.[1];
  // Header bytes arrive as latin1; browsers send UTF-8 names and file names, so they are decoded as such.
  const name = get('name');
  if (name === undefined || name === '') throw bad('a part has no name');
  const star = get('filename*');
  const filename = star !== undefined ? extValue(star) : get('filename');
  return { name: fromLatin1(name), filename: filename === undefined ? undefined : fromLatin1(filename), contentType };
}

/** `type; key=value; key="quoted; value"` → [[type], [key, value], ...], keys lowercased, quotes removed. */
function splitParams(header: string): [string, string?][] {
  const out: [string, string?][] = [];
  let i = 0;
  let first = true;
  while (i < header.length) {
    let j = i;
    while (j < header.length && header[j] !== ';' && header[j] !== '=') j++;
    const key = header.slice(i, j).trim().toLowerCase();
    if (first || header[j] !== '=') {
      out.push([key]);
      first = false;
      i = j + 1;
      continue;
    }
    j++;
    while (header[j] === ' ') j++;
    let value = '';
    if (header[j] === '"') {
      j++;
      while (j < header.length && header[j] !== '"') {
        if (header[j] === '\\' && j + 1 < header.length) j++;
        value += header[j++];
      }
      if (header[j] !== '"') throw bad('a header has an unterminated quoted string');
      j++;
      while (j < header.length && header[j] !== ';') j++;
    } else {
      const end = header.indexOf(';', j);
      value = header.slice(j, end < 0 ? header.length : end).trim();
      j = end < 0 ? header.length : end;
    }
    out.push([key, value]);
    i = j + 1;
  }
  return out;
}

/** RFC 5987 `UTF-8''percent-encoded`. */
function extValue(v: string): string {
  const m = /^utf-8'[^']*'(.*)$/i.exec(v);
  if (!m) throw bad('a filename* parameter is not UTF-8');
  try {
    return Buffer.from(decodeURIComponent(m[1]), 'utf8').toString('latin1');
  } catch {
    throw bad('a filename* parameter is malformed');
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function fromLatin1(s: string): string {
  try {
    return decoder.decode(Buffer.from(s, 'latin1'));
  } catch {
    return s;
  }
}

function utf8(bytes: Buffer, name: string): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new ApiError('INVALID_REQUEST', `The field ${name} is not valid UTF-8`, { param: name });
  }
}

// RFC 2397 data URLs (`data:[<mime>][;param=value]*[;base64],<payload>`), parsed strictly: Buffer.from(x, 'base64')
// silently skips characters it does not know, so a damaged payload would otherwise decode to damaged bytes.

import { ApiError } from '../api/errors.ts';

const MIME_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i;
const PARAMETER = /^[a-z0-9!#$&^_.+-]+=[^;,]*$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]*|[A-Za-z0-9_-]*)={0,2}$/;

function invalid(why: string): ApiError {
  return new ApiError('INVALID_REQUEST', `Invalid data URL: ${why}`);
}

export function parseDataUrl(url: string): { mimeType: string; data: Buffer } {
  if (typeof url !== 'string' || !/^data:/i.test(url)) throw invalid('it must start with "data:"');
  const comma = url.indexOf(',');
  if (comma < 0) throw invalid('missing the "," before the payload');

  const meta = url.slice(5, comma).split(';');
  const base64 = meta.length > 1 && meta[meta.length - 1].trim().toLowerCase() === 'base64';
  if (base64) meta.pop();
  const mimeType = meta[0].trim().toLowerCase() || 'text/plain';
  if (!MIME_TYPE.test(mimeType)) throw invalid(`"${meta[0].slice(0, 100)}" is not a mime type`);
  for (const parameter of meta.slice(1)) {
    if (!PARAMETER.test(parameter.trim())) throw invalid(`malformed parameter "${parameter.slice(0, 100)}"`);
  }

  const payload = url.slice(comma + 1);
  if (!base64) return { mimeType, data: percentDecode(payload) };
  const text = payload.includes('%') ? percentDecode(payload).toString('latin1') : payload;
  return { mimeType, data: decodeBase64(text) };
}

function decodeBase64(text: string): Buffer {
  // Line-wrapped base64 (MIME style) is common and unambiguous, so ASCII whitespace is allowed.
  const compact = text.replace(/[\t\n\f\r ]+/g, '');
  if (!BASE64.test(compact)) throw invalid('the payload is not valid base64');
  const padded = compact.endsWith('=');
  if ((padded && compact.length % 4 !== 0) || (!padded && compact.length % 4 === 1)) {
    throw invalid('the base64 payload has the wrong length (truncated?)');
  }
  return Buffer.from(compact, 'base64');
}

/** `%XX` escapes → bytes, everything else → its UTF-8 bytes; a `%` not followed by two hex digits is an error. */
function percentDecode(text: string): Buffer {
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = text.indexOf('%'); i >= 0; i = text.indexOf('%', start)) {
    const hex = text.slice(i + 1, i + 3);
    if (!/^[0-9a-f]{2}$/i.test(hex)) throw invalid(`bad percent-escape at position ${i}`);
    parts.push(Buffer.from(text.slice(start, i), 'utf8'), Buffer.from([parseInt(hex, 16)]));
    start = i + 3;
  }
  parts.push(Buffer.from(text.slice(start), 'utf8'));
  return Buffer.concat(parts);
}

// An upload to a collection, checked before anything is stored: the formats a chat attachment takes as a document
// (PDF, DOCX, PPTX, XLSX, TXT, MD, CSV), at most 10 MB, bytes that look like their declared type. Reading the text
// is the indexer's (in the worker thread); a file whose text cannot be read ends `failed`, with the reason.
import { ApiError } from '../api/errors.ts';
import { parseDataUrl } from '../files/data-url.ts';
import { decodeText } from '../files/decode-text.ts';
import { detectKind } from '../files/detect-kind.ts';
import { sanitizeFilename } from '../files/prompt-format.ts';

export const MAX_KNOWLEDGE_FILE_BYTES = 10 * 1024 * 1024;
/** A JSON body carrying one file at the limit, base64-inflated. */
export const UPLOAD_BODY_LIMIT = Math.ceil(MAX_KNOWLEDGE_FILE_BYTES * 1.4) + 100_000;

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** Type → its extensions and the kind detectKind reports for its bytes (text types: none binary). */
const TYPES: Record<string, { ext: string[]; binary?: string }> = {
  'application/pdf': { ext: ['pdf'], binary: 'pdf' },
  [DOCX]: { ext: ['docx'], binary: 'docx' },
  [PPTX]: { ext: ['pptx'], binary: 'pptx' },
  [XLSX]: { ext: ['xlsx'], binary: 'xlsx' },
  'text/plain': { ext: ['txt'] },
  'text/markdown': { ext: ['md', 'markdown'] },
  'text/csv': { ext: ['csv'] },
};
const ALIASES: Record<string, string> = {
  'text/x-markdown': 'text/markdown',
  'application/csv': 'text/csv',
  'text/x-csv': 'text/csv',
  'application/x-pdf': 'application/pdf',
};

export const KNOWLEDGE_ACCEPT = [...Object.keys(TYPES), ...Object.values(TYPES).flatMap((t) => t.ext.map((e) => `.${e}`))].join(',');

export interface CheckedUpload {
  name: string;
  type: string;
  size: number;
  /** The canonical data: URL, kept until the file is indexed. */
  source: string;
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

export function checkUpload(u: { name: string; type?: string; dataUrl: string }): CheckedUpload {
  const name = sanitizeFilename(u.name);
  const label = `"${name}"`;
  const declared = (u.type ?? '').split(';')[0].trim().toLowerCase();
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  const byName = ext ? Object.keys(TYPES).find((t) => TYPES[t].ext.includes(ext)) : undefined;
  const named = ALIASES[declared] ?? declared;
  const type = Object.hasOwn(TYPES, named) ? named : byName;
  if (!type)
    throw new ApiError('UNSUPPORTED_FILE', `${label} is not a supported file type: add PDF, DOCX, PPTX, XLSX, TXT, MD or CSV files`, { param: 'name' });
  const comma = u.dataUrl.indexOf(',');
  if (comma >= 0 && Math.floor(((u.dataUrl.length - comma - 1) * 3) / 4) > MAX_KNOWLEDGE_FILE_BYTES + 3)
    throw new ApiError('FILE_TOO_LARGE', `${label} is larger than the ${mb(MAX_KNOWLEDGE_FILE_BYTES)} limit`, { param: 'dataUrl' });
  let data: Buffer;
  try {
    data = parseDataUrl(u.dataUrl).data;
  } catch (e) {
    throw new ApiError('CORRUPTED_FILE', `${label} could not be read: ${(e as Error).message}`, { param: 'dataUrl' });
  }
  if (data.length === 0) throw new ApiError('CORRUPTED_FILE', `${label} is empty`, { param: 'dataUrl' });
  if (data.length > MAX_KNOWLEDGE_FILE_BYTES)
    throw new ApiError('FILE_TOO_LARGE', `${label} is ${mb(data.length)}; the limit is ${mb(MAX_KNOWLEDGE_FILE_BYTES)}`, { param: 'dataUrl' });
  const detected = detectKind(data, type, name);
  const binary = TYPES[type].binary;
  const ok = binary
    ? detected.kind === binary && detected.from === 'content'
    : detected.from !== 'content' && detected.from !== 'unsupported' && detected.from !== 'damaged-zip' && decodeText(data) !== undefined;
  if (!ok) throw new ApiError('CORRUPTED_FILE', `${label} is not a valid ${type} file: its contents do not match its type`, { param: 'dataUrl' });
  return { name, type, size: data.length, source: `data:${type};base64,${data.toString('base64')}` };
}

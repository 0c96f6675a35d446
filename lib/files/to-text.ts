// A file attached to a chat message → the text the model reads. Every failure is an ApiError a client can act on.

import { inflate, constants as zlibConstants } from 'node:zlib';
import { promisify } from 'node:util';
import { ApiError } from '../api/errors.ts';
import { decodeText } from './decode-text.ts';
import { detectKind } from './detect-kind.ts';
import { DEFAULT_FILE_LIMITS, SUPPORTED_FILE_TYPES, TEXT_FILE_KINDS, describeSupportedTypes } from './file-types.ts';
import type { FileKind, FileLimits } from './file-types.ts';
import { sanitizeFilename } from './prompt-format.ts';
import { capText } from './cap-text.ts';
import { officeParser } from './office-parser.ts';

export { DEFAULT_FILE_LIMITS, SUPPORTED_FILE_TYPES } from './file-types.ts';
export type { FileKind, FileLimits } from './file-types.ts';
export { formatFileForPrompt, sanitizeFilename } from './prompt-format.ts';

/** What a ZIP-based document may unpack to: a 10 MB upload must not become gigabytes of XML. */
const MAX_UNPACKED_BYTES = 100 * 1024 * 1024;
/**
 * What a PDF's compressed streams (images aside) may inflate to before pdf.js reads them. The reader's work grows with
 * the inflated content, not the upload: a 76 KB file of drawing operators inflating to 50 MB cost seconds of CPU.
 */
export const MAX_PDF_INFLATED_BYTES = 32 * 1024 * 1024;

export interface FileInput {
  data: Buffer;
  filename?: string;
  mimeType?: string;
}

export async function fileToText(input: FileInput, limits: FileLimits = {}): Promise<{ kind: FileKind; text: string }> {
  const maxBytes = limits.maxBytes ?? DEFAULT_FILE_LIMITS.maxBytes;
  const maxChars = limits.maxChars ?? DEFAULT_FILE_LIMITS.maxChars;
  const label = input.filename ? `File "${sanitizeFilename(input.filename)}"` : 'The file';
  const { data } = input;

  if (data.length > maxBytes) {
    throw new ApiError('FILE_TOO_LARGE', `${label} is ${formatSize(data.length)}; the limit is ${formatSize(maxBytes)}`);
  }

  const detection = detectKind(data, input.mimeType, input.filename);
  if (detection.from === 'unsupported') {
    throw new ApiError('UNSUPPORTED_FILE', `${label}: ${detection.reason}. Supported types: ${describeSupportedTypes()}`);
  }
  if (detection.from === 'damaged-zip') {
    throw new ApiError('CORRUPTED_FILE', `${label} looks like a damaged or truncated document (broken ZIP archive)`);
  }

  const kind = detection.kind ?? 'txt';
  let text: string;
  if (TEXT_FILE_KINDS.has(kind)) {
    const decoded = decodeText(data);
    if (decoded === undefined) {
      throw new ApiError(
        'UNSUPPORTED_FILE',
        detection.kind
          ? `${label} is not UTF-8 text, so it cannot be read as ${kind}`
          : `${label} is not a supported type. Supported types: ${describeSupportedTypes()}`,
      );
    }
    text = kind === 'json' ? prettyJson(decoded, label) : decoded;
  } else {
    if (kind === 'pdf' && (await pdfInflatedBytes(data, MAX_PDF_INFLATED_BYTES)) > MAX_PDF_INFLATED_BYTES) {
      // A few KB that inflate to tens of MB of page content is a decompression bomb, not a document to read.
      throw new ApiError(
        'CORRUPTED_FILE',
        `${label} unpacks to more than ${formatSize(MAX_PDF_INFLATED_BYTES)} of page content; it may be damaged or malicious`,
      );
    }
    text = await parseDocument(data, kind, label);
    // Nothing to read (a scan without OCR, a page of drawing operators, a damaged file): an error, never billed text.
    if (!text.trim()) throw new ApiError('CORRUPTED_FILE', `${label} has no text that could be read; it may be a scan, empty or damaged`);
  }
  return { kind, text: capText(text.replace(/\r\n?/g, '\n'), maxChars) };
}

const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

function prettyJson(text: string, label: string): string {
  // Numbers keep their source text: a parse/stringify round trip would round 64-bit ids and long decimals.
  const keepNumberText = (_key: string, value: unknown, context?: { source?: string }): unknown =>
    typeof value === 'number' && context?.source !== undefined ? rawJSON(context.source) : value;
  try {
    return JSON.stringify(JSON.parse(text, keepNumberText as (key: string, value: unknown) => unknown), null, 2);
  } catch (e) {
    throw new ApiError('CORRUPTED_FILE', `${label} is not valid JSON: ${(e as Error).message}`);
  }
}

const inflateAsync = promisify(inflate);

/**
 * The bytes a PDF's FlateDecode streams inflate to, image streams left out (text extraction never decodes them),
 * counting stops just past `budget`. Inflated on libuv's thread pool, each stream only up to what is left of the
 * budget, so a bomb costs at most `budget` bytes of inflating. A stream zlib cannot read counts as what it yielded.
 */
export async function pdfInflatedBytes(data: Buffer, budget: number): Promise<number> {
  let total = 0;
  let from = 0;
  while (total <= budget) {
    const keyword = data.indexOf('stream', from, 'latin1');
    if (keyword < 0) break;
    from = keyword + 6;
    // `endstream`, or a `stream` keyword not followed by an end of line, is not the start of a stream's data.
    if (data.toString('latin1', Math.max(0, keyword - 3), keyword) === 'end') continue;
    let start = from;
    if (data[start] === 0x0d) start++;
    if (data[start] !== 0x0a) continue;
    start++;
    const end = data.indexOf('endstream', start, 'latin1');
    if (end < 0) break;
    from = end + 9;
    // The stream's dictionary: from its object's header to the keyword.
    const objAt = data.lastIndexOf(' obj', keyword, 'latin1');
    const dict = data.toString('latin1', objAt < 0 || keyword - objAt > 4096 ? Math.max(0, keyword - 4096) : objAt, keyword);
    if (!/\/(FlateDecode|Fl)\b/.test(dict) || /\/Subtype\s*\/Image\b/.test(dict)) continue;
    const maxOutputLength = budget - total + 1;
    try {
      total += (await inflateAsync(data.subarray(start, end), { maxOutputLength, finishFlush: zlibConstants.Z_SYNC_FLUSH })).length;
    } catch (e) {
      if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return budget + 1;
      // Damaged or not really deflate data: pdf.js will make of it what it can; it does not count here.
    }
  }
  return total;
}

async function parseDocument(data: Buffer, kind: FileKind, label: string): Promise<string> {
  // Loaded on first use: it brings pdf.js along, which text-only requests never need.
  const { OfficeParser } = await officeParser().catch(() => {
    throw new ApiError('UNKNOWN_ERROR', 'The document reader is unavailable');
  });
  try {
    const ast = await OfficeParser.parseOffice(data, {
      fileType: kind as Exclude<FileKind, 'txt' | 'md' | 'csv' | 'json'>,
      ocr: false, // OCR would download language data at run time
      extractAttachments: false,
      decompressionLimits: { maxUncompressedBytes: MAX_UNPACKED_BYTES },
      pdfParserConfig: { extractTextColor: false },
    });
    const { value } = await ast.to('text');
    return typeof value === 'string' ? value : '';
  } catch (e) {
    throw parseFailure(e, kind, label);
  }
}

function parseFailure(e: unknown, kind: FileKind, label: string): ApiError {
  const code = (e as { officeIssue?: { code?: string } } | null)?.officeIssue?.code;
  switch (code) {
    case 'PASSWORD_REQUIRED':
    case 'PASSWORD_INCORRECT':
    case 'DOCUMENT_DECRYPTION_FAILED':
      return new ApiError('UNSUPPORTED_FILE', `${label} is password-protected; remove the password and attach it again`);
    case 'ZIP_SIZE_LIMIT_EXCEEDED':
    case 'ZIP_ENTRY_COUNT_LIMIT_EXCEEDED':
    case 'XML_ELEMENT_LIMIT_EXCEEDED':
    case 'MAX_NESTING_DEPTH_EXCEEDED':
    case 'PDF_PROCESS_FAILED':
      return new ApiError('FILE_TOO_LARGE', `${label} is too large or complex to read once unpacked`);
    default: {
      const type = SUPPORTED_FILE_TYPES.find((t) => t.kind === kind)?.label ?? kind;
      return new ApiError('CORRUPTED_FILE', `${label} could not be read as a ${type} (${kind}); it may be damaged`);
    }
  }
}

/** 10485760 → "10 MB", 1536 → "1.5 KB"; rounded up, so a file just over a limit never shows as equal to it. */
function formatSize(bytes: number): string {
  const [value, unit] = bytes >= 1024 * 1024 ? [bytes / (1024 * 1024), 'MB'] : bytes >= 1024 ? [bytes / 1024, 'KB'] : [bytes, 'bytes'];
  return `${Math.ceil(value * 10) / 10} ${unit}`;
}

// A file attached to a chat message → the text the model reads. Every failure is an ApiError a client can act on.

import { ApiError } from '../api/errors.ts';
import { decodeText } from './decode-text.ts';
import { detectKind } from './detect-kind.ts';
import { DEFAULT_FILE_LIMITS, SUPPORTED_FILE_TYPES, TEXT_FILE_KINDS, describeSupportedTypes } from './file-types.ts';
import type { FileKind, FileLimits } from './file-types.ts';
import { sanitizeFilename } from './prompt-format.ts';
import { capText } from './cap-text.ts';

export { DEFAULT_FILE_LIMITS, SUPPORTED_FILE_TYPES } from './file-types.ts';
export type { FileKind, FileLimits } from './file-types.ts';
export { formatFileForPrompt, sanitizeFilename } from './prompt-format.ts';

/** What a ZIP-based document may unpack to: a 10 MB upload must not become gigabytes of XML. */
const MAX_UNPACKED_BYTES = 100 * 1024 * 1024;

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
    text = await parseDocument(data, kind, label);
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

type OfficeParserModule = typeof import('officeparser');
let officeParser: Promise<OfficeParserModule> | undefined;

async function parseDocument(data: Buffer, kind: FileKind, label: string): Promise<string> {
  // Loaded on first use: it brings pdf.js along, which text-only requests never need.
  const { OfficeParser } = await (officeParser ??= import('officeparser')).catch(() => {
    officeParser = undefined;
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
  const [value, unit] =
    bytes >= 1024 * 1024 ? [bytes / (1024 * 1024), 'MB'] : bytes >= 1024 ? [bytes / 1024, 'KB'] : [bytes, 'bytes'];
  return `${Math.ceil(value * 10) / 10} ${unit}`;
}

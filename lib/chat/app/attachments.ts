// Files the browser attaches to a message: checked once here, before anything is stored, then kept with the user
// message ({id,name,type,size,kind,dataUrl}) so a regenerated answer can rebuild the same prompt. The declared type
// is only a claim: the bytes must parse as a data: URL, fit the limit and look like that type.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../api/errors.ts';
import { parseDataUrl } from '../../files/data-url.ts';
import { decodeText } from '../../files/decode-text.ts';
import { detectKind } from '../../files/detect-kind.ts';
import { sanitizeFilename } from '../../files/prompt-format.ts';
import type { AttachmentLimits, UploadAttachment } from '../../wire.ts';
import { AUDIO_ALIASES, AUDIO_EXTENSIONS, AUDIO_TYPES, audioMatches } from './audio-attachments.ts';

export const MAX_FILES = 5;
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const DOCUMENT_TYPES = ['application/pdf', DOCX, PPTX, XLSX, 'text/plain', 'text/markdown', 'text/csv'] as const;

/** Extensions per type: the file picker's accept list, and the type of a file the browser could not name. */
const EXTENSIONS: Record<string, string[]> = {
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg'],
  'image/webp': ['webp'],
  'image/gif': ['gif'],
  'application/pdf': ['pdf'],
  [DOCX]: ['docx'],
  [PPTX]: ['pptx'],
  [XLSX]: ['xlsx'],
  'text/plain': ['txt'],
  'text/markdown': ['md', 'markdown'],
  'text/csv': ['csv'],
  ...AUDIO_EXTENSIONS,
};

/** Other names browsers and systems use for the same types. */
const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'text/x-markdown': 'text/markdown',
  'application/csv': 'text/csv',
  'text/x-csv': 'text/csv',
  'application/x-pdf': 'application/pdf',
  ...AUDIO_ALIASES,
};

/** What a browser sends when it does not know a file's type. */
const UNKNOWN_TYPES = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

/** `audio`: the longest audio attachment in seconds, when this server can transcribe one (audio is refused otherwise). */
export function attachmentLimits(audio?: { maxSeconds: number }): AttachmentLimits {
  const all = [...IMAGE_TYPES, ...DOCUMENT_TYPES, ...(audio ? AUDIO_TYPES : [])];
  return {
    maxFiles: MAX_FILES,
    maxFileBytes: MAX_FILE_BYTES,
    imageTypes: [...IMAGE_TYPES],
    documentTypes: [...DOCUMENT_TYPES],
    audioTypes: audio ? [...AUDIO_TYPES] : [],
    maxAudioSeconds: audio?.maxSeconds ?? 0,
    accept: [...all, ...all.flatMap((t) => EXTENSIONS[t].map((e) => `.${e}`))].join(','),
  };
}

/** The largest JSON body a send may have: every file at the limit, base64-inflated, plus the text. */
export const SEND_BODY_LIMIT = Math.ceil(MAX_FILES * MAX_FILE_BYTES * 1.4) + 1_000_000;

/** An attachment as stored with its user message. */
export interface StoredAttachment {
  [key: string]: unknown;
  id: string;
  name: string;
  type: string;
  size: number;
  kind: 'image' | 'document' | 'audio';
  /** The file as a canonical `data:<type>;base64,` URL (never sent back for documents). */
  dataUrl: string;
  /** Audio: what was said, written down once when the message was sent (audio-attachments.ts). */
  transcript?: string;
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(n < 1024 * 1024 ? 2 : 1)} MB`;

function normaliseType(type: string): string {
  const t = type.split(';')[0].trim().toLowerCase();
  return Object.hasOwn(ALIASES, t) ? ALIASES[t] : t;
}

function typeFromName(name: string): string | undefined {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (!ext) return undefined;
  return Object.keys(EXTENSIONS).find((t) => EXTENSIONS[t].includes(ext));
}

/** The declared type: the upload's own, else the data URL's, else the file name's extension. */
function declaredType(a: UploadAttachment, dataUrlType: string | undefined, name: string): string {
  for (const t of [a.type, dataUrlType]) {
    const n = normaliseType(t ?? '');
    if (!UNKNOWN_TYPES.has(n)) return n;
  }
  return typeFromName(name) ?? 'application/octet-stream';
}

/** The data URL's declared type, read without decoding the payload (so a refused file costs no decode). */
function dataUrlType(url: string): string | undefined {
  const m = /^data:([^;,]*)/i.exec(url);
  return m ? m[1] : undefined;
}

const startsWith = (data: Buffer, bytes: number[], at = 0) => bytes.every((b, i) => data[at + i] === b);

function imageMatches(type: string, data: Buffer): boolean {
  switch (type) {
    case 'image/png':
      return startsWith(data, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    case 'image/jpeg':
      return startsWith(data, [0xff, 0xd8, 0xff]);
    case 'image/gif':
      return data.subarray(0, 6).toString('latin1') === 'GIF87a' || data.subarray(0, 6).toString('latin1') === 'GIF89a';
    case 'image/webp':
      return data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP';
    default:
      return false;
  }
}

/** Whether the bytes are what the declared document type says; text types must be UTF-8 text, not a binary format. */
function documentMatches(type: string, data: Buffer, name: string): boolean {
  const detected = detectKind(data, type, name);
  switch (type) {
    case 'application/pdf':
      return detected.kind === 'pdf' && detected.from === 'content';
    case DOCX:
      return detected.kind === 'docx' && detected.from === 'content';
    case PPTX:
      return detected.kind === 'pptx' && detected.from === 'content';
    case XLSX:
      return detected.kind === 'xlsx' && detected.from === 'content';
    default:
      // Plain text, Markdown, CSV: nothing binary recognised in the bytes, and they decode as text.
      return detected.from !== 'content' && detected.from !== 'unsupported' && detected.from !== 'damaged-zip' && decodeText(data) !== undefined;
  }
}

export interface CheckedAttachments {
  attachments: StoredAttachment[];
  hasImages: boolean;
}

/**
 * Validates uploads (count, type, size, content) and returns them ready to store. `vision` says whether the model
 * takes images; `modelId` names it in the refusal.
 */
export function checkAttachments(uploads: UploadAttachment[], model: { id: string; vision: boolean }, opts: { audio?: boolean } = {}): CheckedAttachments {
  if (uploads.length > MAX_FILES) throw new ApiError('INVALID_REQUEST', `At most ${MAX_FILES} files can be attached to one message`, { param: 'attachments' });
  const images = new Set<string>(IMAGE_TYPES);
  const documents = new Set<string>(DOCUMENT_TYPES);
  const audio = new Set<string>(opts.audio ? AUDIO_TYPES : []);
  const out: StoredAttachment[] = [];
  uploads.forEach((a, i) => {
    const param = `attachments.${i}`;
    const name = sanitizeFilename(a.name);
    const type = declaredType(a, dataUrlType(a.dataUrl), name);
    const label = `"${name}"`;
    const kind = images.has(type) ? 'image' : documents.has(type) ? 'document' : audio.has(type) ? 'audio' : undefined;
    if (!kind) {
      const sounds = audio.size ? ', or audio (WAV, MP3, M4A, OGG, WEBM, FLAC)' : '';
      throw new ApiError(
        'UNSUPPORTED_FILE',
        `${label} is not a supported file type (${type}). Attach images (PNG, JPEG, WebP, GIF)${sounds ? ',' : ' or'} documents (PDF, DOCX, PPTX, XLSX, TXT, MD, CSV)${sounds}.`,
        { param },
      );
    }
    if (kind === 'image' && !model.vision) {
      throw new ApiError('UNSUPPORTED_CONTENT', `Model ${model.id} does not support image input: choose a model with vision to attach ${label}`, { param });
    }
    // Base64 carries 3 bytes per 4 characters: a payload this long cannot be within the limit, so it is not decoded.
    const comma = a.dataUrl.indexOf(',');
    if (comma >= 0 && Math.floor(((a.dataUrl.length - comma - 1) * 3) / 4) > MAX_FILE_BYTES + 3) {
      throw new ApiError('FILE_TOO_LARGE', `${label} is larger than the ${mb(MAX_FILE_BYTES)} limit`, { param });
    }
    let data: Buffer;
    try {
      data = parseDataUrl(a.dataUrl).data;
    } catch (e) {
      throw new ApiError('CORRUPTED_FILE', `${label} could not be read: ${(e as Error).message}`, { param });
    }
    if (data.length === 0) throw new ApiError('CORRUPTED_FILE', `${label} is empty`, { param });
    if (data.length > MAX_FILE_BYTES) throw new ApiError('FILE_TOO_LARGE', `${label} is ${mb(data.length)}; the limit is ${mb(MAX_FILE_BYTES)}`, { param });
    const matches = kind === 'image' ? imageMatches(type, data) : kind === 'audio' ? audioMatches(type, data) : documentMatches(type, data, name);
    if (!matches) throw new ApiError('CORRUPTED_FILE', `${label} is not a valid ${type} file: its contents do not match its type`, { param });
    out.push({ id: randomUUID(), name, type, size: data.length, kind, dataUrl: `data:${type};base64,${data.toString('base64')}` });
  });
  return { attachments: out, hasImages: out.some((a) => a.kind === 'image') };
}

/** A stored attachment read back from a message (older or foreign rows may lack fields). */
export function storedAttachment(a: Record<string, unknown>): StoredAttachment | undefined {
  if (typeof a.dataUrl !== 'string' || typeof a.name !== 'string' || typeof a.type !== 'string') return undefined;
  return {
    id: typeof a.id === 'string' ? a.id : randomUUID(),
    name: a.name,
    type: a.type,
    size: typeof a.size === 'number' ? a.size : 0,
    kind: a.kind === 'image' ? 'image' : a.kind === 'audio' ? 'audio' : 'document',
    dataUrl: a.dataUrl,
    ...(typeof a.transcript === 'string' ? { transcript: a.transcript } : {}),
  };
}

/**
 * Edit-and-resend: the files of the message being edited go with the new version. They were checked when first
 * sent; only what depends on this turn is checked again (the model's vision, the file count with new uploads).
 */
export function recheckKept(kept: StoredAttachment[], model: { id: string; vision: boolean }, newUploads: number): StoredAttachment[] {
  if (kept.length + newUploads > MAX_FILES)
    throw new ApiError('INVALID_REQUEST', `At most ${MAX_FILES} files can be attached to one message`, { param: 'attachments' });
  const image = kept.find((a) => a.kind === 'image');
  if (image && !model.vision) {
    throw new ApiError('UNSUPPORTED_CONTENT', `Model ${model.id} does not support image input: choose a model with vision to resend "${image.name}"`, {
      param: 'attachmentsFrom',
    });
  }
  return kept.map((a) => ({ ...a, id: randomUUID() }));
}

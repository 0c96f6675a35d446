// Client-side attachment checks against GET /limits, so a refused file is explained before any upload (the server
// checks again). Pure, so the rules are testable without a browser.
import type { useTranslations } from 'use-intl';
import type { AttachmentLimits } from '@/lib/wire.ts';
import { displayFileName, formatBytes } from './format.ts';

/** The messages' translator (`useTranslations('attachments')`): limits and refusals in the user's language. */
export type AttachT = ReturnType<typeof useTranslations<'attachments'>>;

/** MIME types by extension, for files the browser reports without a type (common for .md and .csv). */
const BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  csv: 'text/csv',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg',
  webm: 'audio/webm',
  flac: 'audio/flac',
};

const AUDIO_LABELS: Record<string, string> = {
  'audio/wav': 'WAV',
  'audio/mpeg': 'MP3',
  'audio/mp4': 'M4A',
  'audio/ogg': 'OGG',
  'audio/webm': 'WEBM',
  'audio/flac': 'FLAC',
};

/** Other names browsers give the audio types (the server knows the same ones). */
const AUDIO_ALIASES: Record<string, string> = {
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'audio/mp3': 'audio/mpeg',
  'audio/x-m4a': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'audio/opus': 'audio/ogg',
  'audio/x-flac': 'audio/flac',
  'video/webm': 'audio/webm',
};

/** Short labels for the limits line. */
const LABELS: Record<string, string> = {
  'application/pdf': 'PDF',
  'text/plain': 'TXT',
  'text/markdown': 'MD',
  'text/csv': 'CSV',
  [BY_EXTENSION.docx]: 'DOCX',
  [BY_EXTENSION.pptx]: 'PPTX',
  [BY_EXTENSION.xlsx]: 'XLSX',
};

export interface FileLike {
  name: string;
  type: string;
  size: number;
}

/** The type the file will be sent as: the extension's when the browser's is missing or generic. */
export function effectiveType(file: FileLike): string {
  const ext = /\.([a-z0-9]+)$/i.exec(file.name)?.[1]?.toLowerCase() ?? '';
  const fromExt = BY_EXTENSION[ext];
  if (!file.type || file.type === 'application/octet-stream') return fromExt ?? file.type;
  if (Object.hasOwn(AUDIO_ALIASES, file.type)) return AUDIO_ALIASES[file.type];
  // Some systems report markdown as text/plain or text/x-markdown: trust the extension for text files.
  if (fromExt && file.type.startsWith('text/') && fromExt.startsWith('text/')) return fromExt;
  return file.type;
}

/** "Up to 5 files, 10 MB each: images (vision models), PDF, DOCX, …". */
export function describeLimits(limits: AttachmentLimits, t: AttachT): string {
  const docs = [...new Set(limits.documentTypes.map((t) => LABELS[t] ?? t.split('/').pop()!.toUpperCase()))];
  const minutes = Math.floor((limits.maxAudioSeconds ?? 0) / 60);
  const sounds = [...new Set((limits.audioTypes ?? []).map((t) => AUDIO_LABELS[t] ?? t.split('/').pop()!.toUpperCase()))];
  const length = minutes ? t('minutes', { n: minutes }) : t('seconds', { n: limits.maxAudioSeconds ?? 0 });
  const audio = sounds.length ? [t('audioUpTo', { length, formats: sounds.join(', ') })] : [];
  const kinds = [...(limits.imageTypes.length ? [t('images')] : []), ...docs, ...audio];
  return t('limits', { max: limits.maxFiles, size: formatBytes(limits.maxFileBytes), kinds: kinds.join(', ') });
}

export interface Checked<F extends FileLike> {
  accepted: { file: F; type: string; kind: 'image' | 'document' }[];
  /** One plain sentence per refused file. */
  errors: string[];
}

/** Which of `files` may join the `alreadyAttached` ones, and why the others may not. */
export function checkFiles<F extends FileLike>(
  files: readonly F[],
  alreadyAttached: number,
  limits: AttachmentLimits,
  vision: boolean,
  t: AttachT,
): Checked<F> {
  const out: Checked<F> = { accepted: [], errors: [] };
  let room = limits.maxFiles - alreadyAttached;
  for (const file of files) {
    const name = `“${displayFileName(file.name)}”`;
    const type = effectiveType(file);
    const isImage = limits.imageTypes.includes(type);
    // Audio is read like a document: the server writes down what is said.
    const isAudio = !!limits.audioTypes?.includes(type);
    if (!isImage && !isAudio && !limits.documentTypes.includes(type)) {
      out.errors.push(t('unsupported', { name }));
    } else if (isImage && !vision) {
      out.errors.push(t('noVision', { name }));
    } else if (file.size > limits.maxFileBytes) {
      out.errors.push(t('tooBig', { name, size: formatBytes(file.size), limit: formatBytes(limits.maxFileBytes) }));
    } else if (file.size === 0) {
      out.errors.push(t('empty', { name }));
    } else if (room <= 0) {
      out.errors.push(t('tooMany', { name, max: limits.maxFiles }));
    } else {
      room--;
      out.accepted.push({ file, type, kind: isImage ? 'image' : 'document' });
    }
  }
  return out;
}

// How an attached file's text is laid out in the prompt. The file name and the file's text both come from the
// client, so neither may forge the markers that tell the model where a file starts and ends.

import type { FileKind } from './file-types.ts';

const MAX_NAME_LENGTH = 120;

// Control characters (C0, DEL, C1), line/paragraph separators, zero-width and bidi-override characters: anything
// that could break the header line or make the name display differently from what the model reads.
const UNSAFE_NAME_CHARS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]+/g;

/** A file name safe to put on one line of a prompt: base name only, no control characters, no brackets, capped. */
export function sanitizeFilename(name: string | undefined): string {
  const base = (name ?? '').split(/[/\\]/).pop() ?? '';
  let clean = base.replace(UNSAFE_NAME_CHARS, ' ').replace(/[[<]/g, '(').replace(/[\]>]/g, ')').replace(/\s+/g, ' ').trim();
  if (clean.length > MAX_NAME_LENGTH) {
    // Keep the extension: it tells the model (and the reader) what the file was.
    const ext = /\.[A-Za-z0-9]{1,10}$/.exec(clean)?.[0] ?? '';
    clean = `${Array.from(clean)
      .slice(0, MAX_NAME_LENGTH - ext.length - 1)
      .join('')}…${ext}`;
  }
  return clean || 'unnamed';
}

/** The extracted text wrapped for the model: a header naming the file and its kind, the text, a closing marker. */
export function formatFileForPrompt(name: string | undefined, kind: FileKind, text: string): string {
  const safeName = sanitizeFilename(name);
  // A document quoting our own markers must not look like the end of this file or the start of another.
  const body = text.replace(/\[(File|End of file):/g, '($1:').trim() || '(no text could be extracted from this file)';
  return `[File: ${safeName} (${kind})]\n${body}\n[End of file: ${safeName}]`;
}

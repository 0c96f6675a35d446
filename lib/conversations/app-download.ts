// Attachment downloads: a Content-Disposition whose filename cannot break the header or name a path, with an ASCII
// fallback for old clients and the readable UTF-8 name in filename* (RFC 6266 / RFC 8187).

// Controls, bidi overrides/isolates, path separators and characters Windows refuses in file names.
const UNSAFE = /[\p{Cc}\u200E\u200F\u202A-\u202E\u2066-\u2069/\\:*?"<>|]/gu;
const NAME_MAX = 80;

/** A file name stem from a title: no unsafe characters, spaces collapsed, no leading dots, at most NAME_MAX characters. */
export function fileStem(title: string, fallback = 'conversation'): string {
  const clean = title.replace(UNSAFE, ' ').replace(/\s+/g, ' ').trim().replace(/^\.+/, '');
  const cut = [...clean].slice(0, NAME_MAX).join('').trim();
  return cut || fallback;
}

/**
 * `attachment` with `filename` (ASCII only) and `filename*` (UTF-8, percent-encoded) for `<stem><suffix>.<ext>`;
 * a stem with no ASCII left becomes `fallback` in the ASCII name.
 */
export function contentDisposition(stem: string, ext: string, opts: { suffix?: string; fallback?: string } = {}): string {
  const suffix = opts.suffix ?? '';
  const asciiStem =
    stem
      .normalize('NFKD')
      .replace(/[^\x20-\x7e]/g, '')
      .replace(/["\\%;]/g, '')
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/^\.+/, '') ||
    (opts.fallback ?? 'download');
  const encoded = encodeURIComponent(`${stem}${suffix}.${ext}`).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${asciiStem}${suffix}.${ext}"; filename*=UTF-8''${encoded}`;
}

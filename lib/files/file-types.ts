// The file types a chat message may attach, in one place so the API and the UI state the same list and limits.
// Kept free of parser imports: the UI bundle can import it without pulling in officeparser or pdf.js.

export const SUPPORTED_FILE_TYPES = [
  { kind: 'pdf', label: 'PDF', extensions: ['pdf'], mimeTypes: ['application/pdf'] },
  {
    kind: 'docx',
    label: 'Word document',
    extensions: ['docx'],
    mimeTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  },
  {
    kind: 'pptx',
    label: 'PowerPoint presentation',
    extensions: ['pptx'],
    mimeTypes: ['application/vnd.openxmlformats-officedocument.presentationml.presentation'],
  },
  {
    kind: 'xlsx',
    label: 'Excel workbook',
    extensions: ['xlsx'],
    mimeTypes: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  },
  { kind: 'odt', label: 'OpenDocument text', extensions: ['odt'], mimeTypes: ['application/vnd.oasis.opendocument.text'] },
  {
    kind: 'ods',
    label: 'OpenDocument spreadsheet',
    extensions: ['ods'],
    mimeTypes: ['application/vnd.oasis.opendocument.spreadsheet'],
  },
  {
    kind: 'odp',
    label: 'OpenDocument presentation',
    extensions: ['odp'],
    mimeTypes: ['application/vnd.oasis.opendocument.presentation'],
  },
  { kind: 'md', label: 'Markdown', extensions: ['md', 'markdown', 'mdx'], mimeTypes: ['text/markdown', 'text/x-markdown'] },
  {
    kind: 'csv',
    label: 'CSV / TSV',
    extensions: ['csv', 'tsv'],
    mimeTypes: ['text/csv', 'application/csv', 'text/tab-separated-values'],
  },
  { kind: 'json', label: 'JSON', extensions: ['json'], mimeTypes: ['application/json', 'text/json'] },
  {
    kind: 'txt',
    label: 'Plain text and source code',
    // Any other text/* mime type is plain text too (see kindFromMimeType).
    extensions: [
      'txt',
      'text',
      'log',
      'ini',
      'cfg',
      'conf',
      'toml',
      'yaml',
      'yml',
      'xml',
      'html',
      'htm',
      'css',
      'scss',
      'less',
      'js',
      'mjs',
      'cjs',
      'jsx',
      'ts',
      'mts',
      'cts',
      'tsx',
      'vue',
      'svelte',
      'py',
      'pyi',
      'rb',
      'go',
      'rs',
      'java',
      'kt',
      'kts',
      'scala',
      'groovy',
      'gradle',
      'c',
      'h',
      'cc',
      'cpp',
      'cxx',
      'hpp',
      'hh',
      'cs',
      'fs',
      'swift',
      'm',
      'mm',
      'php',
      'pl',
      'pm',
      'r',
      'jl',
      'lua',
      'dart',
      'ex',
      'exs',
      'erl',
      'hs',
      'ml',
      'clj',
      'nim',
      'zig',
      'sol',
      'sh',
      'bash',
      'zsh',
      'fish',
      'ps1',
      'bat',
      'cmd',
      'sql',
      'graphql',
      'gql',
      'proto',
      'tf',
      'hcl',
      'tex',
      'bib',
      'rst',
      'adoc',
      'org',
      'properties',
      'env',
      'diff',
      'patch',
      'jsonl',
      'ndjson',
      'ipynb',
      'srt',
      'vtt',
    ],
    mimeTypes: [
      'text/plain',
      'text/html',
      'text/xml',
      'application/xml',
      'text/css',
      'text/javascript',
      'application/javascript',
      'application/typescript',
      'application/x-sh',
      'application/yaml',
      'application/x-yaml',
      'application/toml',
      'application/sql',
      'application/x-ndjson',
      'application/x-tex',
      'application/x-ipynb+json',
    ],
  },
] as const;

export type FileKind = (typeof SUPPORTED_FILE_TYPES)[number]['kind'];

/** Kinds whose bytes are the text itself (UTF-8), as opposed to documents a parser has to read. */
export const TEXT_FILE_KINDS: ReadonlySet<FileKind> = new Set(['txt', 'md', 'csv', 'json']);

export const DEFAULT_FILE_LIMITS = {
  /** Largest file accepted, before any parsing. */
  maxBytes: 10 * 1024 * 1024,
  /** Extracted text beyond this many characters is cut off (with a note saying so). */
  maxChars: 200_000,
} as const;

export interface FileLimits {
  maxBytes?: number;
  maxChars?: number;
}

const byExtension = new Map<string, FileKind>();
const byMimeType = new Map<string, FileKind>();
for (const type of SUPPORTED_FILE_TYPES) {
  for (const ext of type.extensions) byExtension.set(ext, type.kind);
  for (const mime of type.mimeTypes) byMimeType.set(mime, type.kind);
}

/** The kind a file name's extension stands for, if any. */
export function kindFromFilename(filename: string | undefined): FileKind | undefined {
  const match = filename ? /\.([a-z0-9]+)$/i.exec(filename.trim()) : null;
  return match ? byExtension.get(match[1].toLowerCase()) : undefined;
}

/** The kind a mime type stands for, if any; parameters (`; charset=...`) are ignored. */
export function kindFromMimeType(mimeType: string | undefined): FileKind | undefined {
  const mime = mimeType?.split(';')[0].trim().toLowerCase();
  if (!mime) return undefined;
  return byMimeType.get(mime) ?? (mime.startsWith('text/') ? 'txt' : undefined);
}

/** One line naming every supported type, for error messages. */
export function describeSupportedTypes(): string {
  return SUPPORTED_FILE_TYPES.map((t) => (t.kind === 'txt' ? 'plain text/source code' : t.kind)).join(', ');
}

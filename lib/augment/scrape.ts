// Web scraping: the URLs in a user message, fetched through safeFetch (no private addresses unless allowlisted) and
// turned into readable text: HTML by Readability (the article, not the navigation and adverts around it), plain
// text and markdown as they are, PDFs and office documents by fileToText.

import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { ApiError } from '../api/errors.ts';
import { SUPPORTED_FILE_TYPES, kindFromFilename, kindFromMimeType } from '../files/file-types.ts';
import { fileToText } from '../files/to-text.ts';
import { safeFetch } from '../net/safe-fetch.ts';
import type { ScrapedPage } from './types.ts';
import { capText } from '../files/cap-text.ts';
import { absolutiseLinks, codeLanguageClasses, nodeToMarkdown } from './markdown.ts';

export interface ScrapeOptions {
  signal?: AbortSignal;
  /** Hosts exempt from the private-address check (Config.fetchAllowHosts); default none. */
  allowHosts?: string[];
  /** Longest text kept per page (default 20,000 characters); the rest is cut with a note saying so. */
  maxChars?: number;
  /** `text` (default: what a chat's sources hold) or `markdown` (/augment/scrape: headings, links, lists, code, tables). */
  format?: 'text' | 'markdown';
}

export const SCRAPE_LIMITS = { maxBytes: 5 * 1024 * 1024, timeoutMs: 10_000, maxChars: 20_000 } as const;

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`{}|\\^\u3000-\u303f\uff01-\uff0f]+/gi;
const TRAILING = /[.,;:!?'"*_~]+$/;
const CLOSERS: Record<string, string> = { ')': '(', ']': '[' };

/** The http(s) URLs in `text`, trailing punctuation stripped, first occurrence of each, at most `max`. */
export function findUrls(text: string, max = 5): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  for (const match of text.matchAll(URL_PATTERN)) {
    if (found.length >= max) break;
    const candidate = trimUrl(match[0]);
    let key: string;
    try {
      const url = new URL(candidate);
      if (!url.hostname) continue;
      key = url.href;
    } catch {
      continue;
    }
    if (seen.has(key)) continue;
    seen.add(key);
    found.push(candidate);
  }
  return found;
}

/** Strips sentence punctuation and closing brackets that the URL did not open (`(see https://a.b/c)`). */
function trimUrl(raw: string): string {
  let url = raw;
  for (;;) {
    const before = url;
    url = url.replace(TRAILING, '');
    const last = url.at(-1);
    if (last && CLOSERS[last] && count(url, last) > count(url, CLOSERS[last])) url = url.slice(0, -1);
    if (url === before) return url;
  }
}

const count = (s: string, ch: string): number => s.split(ch).length - 1;

export async function scrapeUrl(url: string, opts: ScrapeOptions = {}): Promise<ScrapedPage> {
  const maxChars = opts.maxChars ?? SCRAPE_LIMITS.maxChars;
  const res = await safeFetch(url, {
    maxBytes: SCRAPE_LIMITS.maxBytes,
    timeoutMs: SCRAPE_LIMITS.timeoutMs,
    allowHosts: opts.allowHosts,
    signal: opts.signal,
    accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,application/pdf;q=0.8,*/*;q=0.5',
  });
  if (res.status < 200 || res.status > 299) {
    throw new ApiError('INVALID_REQUEST', `could not fetch ${res.url}: HTTP ${res.status}`);
  }
  const declared = res.contentType?.split(';')[0].trim().toLowerCase();
  // Servers often send documents as octet-stream; the bytes and the file name say more.
  const mime = !declared || OCTET_STREAM.has(declared) ? sniff(res.body, res.url) : declared;
  let page: { title: string; text: string };
  if (mime === 'text/html' || mime === 'application/xhtml+xml') {
    page = htmlToArticle(decode(res.body, res.contentType), res.url, opts.format ?? 'text');
  } else if (mime === 'text/plain' || mime === 'text/markdown' || mime === 'text/x-markdown') {
    const text = decode(res.body, res.contentType);
    // Markdown keeps its indentation (nested lists, indented code) when Markdown is what was asked for.
    const keep = opts.format === 'markdown' && mime !== 'text/plain';
    page = { title: markdownTitle(text) ?? titleFromUrl(res.url), text: keep ? text.replace(/\r\n?/g, '\n').trim() : normaliseWhitespace(text) };
  } else if (isDocument(mime)) {
    const doc = await fileToText(
      { data: res.body, filename: fileNameOf(res.url), mimeType: mime },
      { maxBytes: SCRAPE_LIMITS.maxBytes, maxChars: Number.MAX_SAFE_INTEGER },
    );
    page = { title: titleFromUrl(res.url), text: normaliseWhitespace(doc.text) };
  } else {
    throw new ApiError('INVALID_REQUEST', `unsupported content type "${mime || declared || 'unknown'}" at ${res.url}`);
  }
  return { url: res.url, title: page.title, content: capText(page.text, maxChars) };
}

/** Every URL scraped at once; failures are reported per URL, never thrown. Pages keep the order of `urls`. */
export async function scrapeAll(urls: string[], opts: ScrapeOptions = {}): Promise<{ pages: ScrapedPage[]; failed: { url: string; reason: string }[] }> {
  const settled = await Promise.allSettled(urls.map((url) => scrapeUrl(url, opts)));
  const pages: ScrapedPage[] = [];
  const failed: { url: string; reason: string }[] = [];
  settled.forEach((s, i) => {
    if (s.status === 'fulfilled') pages.push(s.value);
    else failed.push({ url: urls[i], reason: s.reason instanceof Error ? s.reason.message : String(s.reason) });
  });
  return { pages, failed };
}

/** PDFs and the office formats fileToText reads (not the text kinds: those are handled above or refused). */
function isDocument(mime: string): boolean {
  const kind = kindFromMimeType(mime);
  return kind !== undefined && kind !== 'txt' && kind !== 'md' && kind !== 'csv' && kind !== 'json';
}

const OCTET_STREAM = new Set(['application/octet-stream', 'binary/octet-stream']);

/** A content type for a response that did not say, from its first bytes or else its file name ('' if neither tells). */
function sniff(body: Buffer, url: string): string {
  const head = body.subarray(0, 1024);
  if (head.includes('%PDF-')) return 'application/pdf';
  if (/^\s*<(?:!doctype html|html|head|body)/i.test(head.toString('latin1'))) return 'text/html';
  const kind = kindFromFilename(fileNameOf(url));
  const type = SUPPORTED_FILE_TYPES.find((t) => t.kind === kind);
  return type && isDocument(type.mimeTypes[0]) ? type.mimeTypes[0] : '';
}

const BLOCK_TAGS = new Set(
  'ADDRESS ARTICLE ASIDE BLOCKQUOTE BR DD DIV DL DT FIGCAPTION FIGURE FOOTER FORM H1 H2 H3 H4 H5 H6 HEADER HR LI MAIN NAV OL P PRE SECTION TABLE TD TH TR UL'.split(
    ' ',
  ),
);
const SKIP_TAGS = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'IFRAME', 'CANVAS']);

interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}

function htmlToArticle(html: string, url: string, format: 'text' | 'markdown'): { title: string; text: string } {
  let { document } = parseHTML(html);
  // linkedom makes a fragment without <html> its own root (or no root at all); wrap it so Readability has a body.
  if (document.documentElement?.nodeName.toUpperCase() !== 'HTML') {
    ({ document } = parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`));
  }
  const pageTitle = normaliseWhitespace(document.title ?? '');
  const markdown = format === 'markdown';
  if (markdown) absolutiseLinks(document, url);
  // Readability edits the document it reads; the fallback needs the page as it was.
  const fallbackBody = (document.body as unknown as { cloneNode(deep: boolean): DomNode } | null)?.cloneNode(true);
  // The serializer turns the article into text with line breaks between blocks (textContent would run a heading
  // into the paragraph after it), or into Markdown from the cleaned DOM itself.
  const serialise = (el: unknown) => (markdown ? nodeToMarkdown(el) : normaliseWhitespace(blockText(el as DomNode)));
  const article = new Readability(document as unknown as Document, {
    serializer: serialise,
    classesToPreserve: markdown ? codeLanguageClasses(document) : [],
  }).parse();
  const articleText = typeof article?.content === 'string' ? article.content : '';
  const title = normaliseWhitespace(article?.title ?? '') || pageTitle || titleFromUrl(url);
  if (articleText) return { title, text: articleText };
  return { title, text: fallbackBody ? serialise(fallbackBody) : '' };
}

/** The text of a DOM subtree, with a line break around each block element and scripts and styles left out. */
function blockText(root: DomNode): string {
  const parts: string[] = [];
  const walk = (node: DomNode): void => {
    if (node.nodeType === 3) {
      parts.push(node.textContent ?? '');
      return;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
    const name = node.nodeName.toUpperCase();
    if (SKIP_TAGS.has(name)) return;
    const block = BLOCK_TAGS.has(name);
    if (block) parts.push('\n');
    for (let i = 0; i < node.childNodes.length; i++) walk(node.childNodes[i]);
    if (block) parts.push('\n');
  };
  walk(root);
  return parts.join('');
}

/** Spaces collapsed within lines, lines trimmed, at most one blank line in a row. */
function normaliseWhitespace(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The body as text in the charset the response declares (UTF-8 when it declares none or one we cannot decode). */
function decode(body: Buffer, contentType: string | undefined): string {
  const declared = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
  const sniffed = declared ?? /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(body.subarray(0, 2048).toString('latin1'))?.[1];
  try {
    return new TextDecoder(sniffed ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function markdownTitle(text: string): string | undefined {
  const heading = /^#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(text.slice(0, 4096));
  return heading ? heading[1].trim() : undefined;
}

function fileNameOf(url: string): string | undefined {
  const last = new URL(url).pathname.split('/').filter(Boolean).at(-1);
  if (!last) return undefined;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** The last path segment, or the host for a bare domain. */
function titleFromUrl(url: string): string {
  return fileNameOf(url) ?? new URL(url).hostname;
}

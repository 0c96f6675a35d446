// HTML → Markdown for /augment/scrape: turndown over the DOM that Readability cleaned (linkedom nodes; nothing is
// parsed twice and nothing is fetched), with GFM tables, which turndown itself leaves as loose text.
import TurndownService from 'turndown';

type El = HTMLElement;

const DROPPED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'IFRAME', 'CANVAS', 'SVG', 'OBJECT', 'EMBED', 'FORM', 'BUTTON', 'INPUT', 'SELECT']);

/** Text of a table cell on one line, with the pipes that would end the cell escaped. */
const cellText = (content: string): string =>
  content
    .replace(/\s*\n+\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();

const rowsOf = (table: El): El[] => Array.from(table.querySelectorAll('tr')).filter((tr) => tr.closest('table') === table) as El[];

const cellsOf = (tr: El): El[] => Array.from(tr.children).filter((c) => c.nodeName === 'TH' || c.nodeName === 'TD') as El[];

/** A row is the header when it sits in THEAD or holds only TH cells (GFM needs one; a table without gets a blank one). */
function isHeaderRow(tr: El): boolean {
  const cells = cellsOf(tr);
  return tr.parentElement?.nodeName === 'THEAD' || (cells.length > 0 && cells.every((c) => c.nodeName === 'TH'));
}

/** A table of plain cells: no nested tables and no spans that GFM cannot draw. */
function isSimpleTable(table: El): boolean {
  if (table.querySelector('table')) return false;
  return !Array.from(table.querySelectorAll('td, th')).some((c) => Number(c.getAttribute('colspan') ?? 1) > 1 || Number(c.getAttribute('rowspan') ?? 1) > 1);
}

function createConverter(): TurndownService {
  const td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_', strongDelimiter: '**' });
  td.remove((node) => DROPPED.has(node.nodeName.toUpperCase()));
  td.addRule('strikethrough', { filter: ['del', 's'], replacement: (content) => `~~${content}~~` });
  td.addRule('tableCell', {
    filter: (node) => (node.nodeName === 'TH' || node.nodeName === 'TD') && isSimpleTable(node.closest('table') as El),
    replacement: (content, node) => `${node.previousElementSibling ? ' ' : '| '}${cellText(content)} |`,
  });
  td.addRule('tableRow', {
    filter: (node) => node.nodeName === 'TR' && isSimpleTable(node.closest('table') as El),
    replacement: (content, node) => {
      const table = node.closest('table') as El;
      const rows = rowsOf(table);
      const width = Math.max(...rows.map((r) => cellsOf(r).length));
      const padded = content + '  |'.repeat(Math.max(0, width - cellsOf(node).length));
      const separator = `\n|${' --- |'.repeat(width)}`;
      if (rows[0] === node && isHeaderRow(node)) return `\n${padded}${separator}`;
      // No header row: GFM needs one, so the table gets a blank header first.
      if (rows[0] === node) return `\n|${'  |'.repeat(width)}${separator}\n${padded}`;
      return `\n${padded}`;
    },
  });
  td.addRule('table', {
    filter: (node) => node.nodeName === 'TABLE' && isSimpleTable(node),
    replacement: (content) => `\n\n${content.replace(/\n+/g, '\n').trim()}\n\n`,
  });
  // Sections only group rows; the rows carry the table.
  td.addRule('tableSection', { filter: ['thead', 'tbody', 'tfoot'], replacement: (content) => content });
  // A fenced block keeps the language its <code> declares (`language-js`, `lang-py`).
  td.addRule('fencedCode', {
    filter: (node) => node.nodeName === 'PRE' && node.firstElementChild?.nodeName === 'CODE',
    replacement: (_content, node) => {
      const code = node.firstElementChild as El;
      const lang = /(?:^|\s)lang(?:uage)?-(\S+)/.exec(code.getAttribute('class') ?? '')?.[1] ?? '';
      const text = (code.textContent ?? '').replace(/\n$/, '');
      const fence = text.includes('```') ? '~~~' : '```';
      return `\n\n${fence}${lang}\n${text}\n${fence}\n\n`;
    },
  });
  return td;
}

let converter: TurndownService | undefined;

/** Markdown for a DOM subtree (an element or a whole document). */
export function nodeToMarkdown(node: unknown): string {
  converter ??= createConverter();
  return converter.turndown(node as El).trim();
}

const SAFE_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

/** Makes link and image targets absolute against the page's URL, so the Markdown's links work off the page. */
export function absolutiseLinks(document: { querySelectorAll(s: string): ArrayLike<unknown> }, pageUrl: string): void {
  for (const [selector, attr] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const el of Array.from(document.querySelectorAll(selector)) as El[]) {
      const value = el.getAttribute(attr) ?? '';
      if (value.startsWith('#')) continue;
      let url: URL | undefined;
      try {
        url = new URL(value, pageUrl);
      } catch {}
      // javascript: and data: targets are no use to a reader of the Markdown (and risky to one who clicks).
      if (url && SAFE_SCHEMES.has(url.protocol)) el.setAttribute(attr, url.href);
      else el.removeAttribute(attr);
    }
  }
}

/** The `language-*` classes in the page: Readability strips classes except the ones it is told to keep. */
export function codeLanguageClasses(document: { querySelectorAll(s: string): ArrayLike<unknown> }): string[] {
  const found = new Set<string>();
  for (const el of Array.from(document.querySelectorAll('code[class], pre[class]')) as El[]) {
    for (const c of (el.getAttribute('class') ?? '').split(/\s+/)) if (/^lang(?:uage)?-\S+$/.test(c)) found.add(c);
  }
  return [...found];
}

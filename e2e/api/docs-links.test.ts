// The documentation stays inside the repository and in step with the code: every relative link and #anchor in
// README.md and docs/*.md resolves to a file (and heading) of this checkout, no Markdown file outside it is named,
// and the API reference (docs/API.md) lists every /api/v1 route and every error code.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES } from '../../lib/api/errors.ts';
import { apiRouter } from '../../lib/http/api.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks, line by line (fences hold examples, not links or headings). */
function prose(file: string): string[] {
  let fenced = false;
  return fs
    .readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    });
}

/** GitHub's heading anchors: lowercased, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(file)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const text = m[1].replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Inline links' targets, code spans removed first. */
function links(file: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  prose(file).forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, '');
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ target: m[1], line: i + 1 });
  });
  return out;
}

const inside = (p: string) => p === ROOT || p.startsWith(`${ROOT}${path.sep}`);

test('every relative link and anchor in README.md and docs/*.md resolves inside the repository', () => {
  const problems: string[] = [];
  for (const file of DOCS) {
    for (const { target, line } of links(file)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto: — not files of this repository
      const [rawPath, anchor] = target.split('#', 2);
      const where = `${file}:${line} → ${target}`;
      const resolved = rawPath ? path.resolve(ROOT, path.dirname(file), decodeURIComponent(rawPath)) : path.join(ROOT, file);
      if (!inside(resolved)) problems.push(`${where}: outside the repository`);
      else if (!fs.existsSync(resolved)) problems.push(`${where}: no such file`);
      else if (anchor !== undefined && resolved.endsWith('.md') && !anchors(path.relative(ROOT, resolved)).has(anchor))
        problems.push(`${where}: no heading with that anchor`);
    }
  }
  assert.deepEqual(problems, []);
});

test('no Markdown file outside the repository is named (in links or in code spans)', () => {
  const problems: string[] = [];
  for (const file of DOCS) {
    prose(file).forEach((line, i) => {
      for (const m of line.matchAll(/`([\w./-]+\.md)(?:#[\w-]*)?`/g)) {
        const name = m[1];
        const candidates = [path.resolve(ROOT, path.dirname(file), name), path.resolve(ROOT, name)];
        if (!candidates.some((c) => inside(c) && fs.existsSync(c))) problems.push(`${file}:${i + 1} names ${name}, which is not in the repository`);
      }
    });
  }
  assert.deepEqual(problems, []);
});

test('docs/API.md lists every /api/v1 route and every error code', () => {
  const reference = fs.readFileSync(path.join(ROOT, 'docs/API.md'), 'utf8');
  const missingRoutes = apiRouter()
    .all()
    .map((r) => `${r.method} ${r.path}`)
    .filter((r) => !reference.includes(`\`${r}\``));
  assert.deepEqual(missingRoutes, [], 'routes missing from docs/API.md');
  const missingCodes = Object.keys(ERROR_CODES).filter((c) => !reference.includes(`\`${c}\``));
  assert.deepEqual(missingCodes, [], 'error codes missing from docs/API.md');
});

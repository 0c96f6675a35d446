#!/usr/bin/env node
// Import fences and import cycles, checked without dependencies (part of `npm run lint`).
//
// Fences (each import specifier resolved: relative paths and the `@/` alias; packages are not fenced here):
//   - components/ imports from lib/ only the app's wire types (lib/app/wire.ts, lib/app/wire/*) and ALLOWED_SHARED;
//   - lib/ imports neither app/ nor components/;
//   - lib/inference/ imports neither lib/http/ nor lib/app/;
//   - production code under lib/ (every file but a *.test.ts) imports nothing from e2e/: test helpers live in
//     e2e/support, so the test harness never becomes part of the server.
// Cycles: no cycle among lib/ files through static value imports and re-exports (`import type`, `export type` and
// imports whose every name is `type` are erased; a dynamic import() runs later, so it cannot close a cycle).
//
// `node scripts/check-imports.ts` prints each finding and exits 1 when there is one.
import fs from 'node:fs';
import path from 'node:path';

/** Pure modules under lib/ that the browser app may import besides the wire types (keep this list short). */
export const ALLOWED_SHARED = new Set(['lib/wallet/networks.ts']);

const SOURCE_DIRS = ['lib', 'components', 'app', 'scripts', 'e2e'];
const SOURCE_EXT = /\.(ts|tsx|mts|cts|js|mjs)$/;

export interface ImportRef {
  specifier: string;
  /** Erased at run time: `import type`, `export type`, or every named binding marked `type`. */
  typeOnly: boolean;
  /** import('…'): evaluated later, not while the importing module loads. */
  dynamic: boolean;
  line: number;
}

/** The source with comments blanked out (strings and newlines kept, so offsets and line numbers still match). */
export function stripComments(src: string): string {
  let out = '';
  let i = 0;
  const templateDepth: number[] = []; // brace depth at which each open `${` returns to its template string
  let braces = 0;
  let inTemplate = false;
  while (i < src.length) {
    const c = src[i];
    const next = src[i + 1];
    if (inTemplate) {
      if (c === '\\') {
        out += src.slice(i, i + 2);
        i += 2;
      } else if (c === '`') {
        inTemplate = false;
        out += c;
        i++;
      } else if (c === '$' && next === '{') {
        templateDepth.push(braces);
        braces++;
        inTemplate = false;
        out += '${';
        i += 2;
      } else {
        out += c;
        i++;
      }
      continue;
    }
    if (c === '/' && next === '/') {
      while (i < src.length && src[i] !== '\n') {
        out += ' ';
        i++;
      }
    } else if (c === '/' && next === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end === -1 ? src.length : end + 2;
      out += src.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1;
      out += src.slice(i, j + 1);
      i = j + 1;
    } else if (c === '`') {
      inTemplate = true;
      out += c;
      i++;
    } else {
      if (c === '{') braces++;
      if (c === '}') {
        braces--;
        if (templateDepth.length && templateDepth[templateDepth.length - 1] === braces) {
          templateDepth.pop();
          inTemplate = true;
        }
      }
      out += c;
      i++;
    }
  }
  return out;
}

const lineAt = (src: string, index: number): number => src.slice(0, index).split('\n').length;

/** Every import and re-export specifier in a module's source. */
export function parseImports(source: string): ImportRef[] {
  const src = stripComments(source);
  const refs: ImportRef[] = [];
  // import x from '…' / import { a, type B } from '…' / import * as x from '…' / import type … from '…'
  for (const m of src.matchAll(/(?<![\w$.])import\s+(type\s+)?([\w$*{}\s,]+?)\s*from\s*(['"])([^'"\n]+)\3/g)) {
    refs.push({ specifier: m[4], typeOnly: Boolean(m[1]) || namedAllTypes(m[2]), dynamic: false, line: lineAt(src, m.index) });
  }
  // import '…' (side effects only)
  for (const m of src.matchAll(/(?<![\w$.])import\s*(['"])([^'"\n]+)\1/g)) {
    refs.push({ specifier: m[2], typeOnly: false, dynamic: false, line: lineAt(src, m.index) });
  }
  // export * from '…' / export * as x from '…' / export { a, type B } from '…' / export type { … } from '…'
  for (const m of src.matchAll(/(?<![\w$.])export\s+(type\s+)?(\*(?:\s+as\s+[\w$]+)?|\{[^}]*\})\s*from\s*(['"])([^'"\n]+)\3/g)) {
    refs.push({ specifier: m[4], typeOnly: Boolean(m[1]) || namedAllTypes(m[2]), dynamic: false, line: lineAt(src, m.index) });
  }
  // import('…'), but not `typeof import('…')` (a type)
  for (const m of src.matchAll(/(typeof\s+)?(?<![\w$.])import\s*\(\s*(['"])([^'"\n]+)\2\s*\)/g)) {
    refs.push({ specifier: m[3], typeOnly: Boolean(m[1]), dynamic: true, line: lineAt(src, m.index) });
  }
  return refs.sort((a, b) => a.line - b.line);
}

/** `{ type A, type B as C }`: a named list whose every binding is a type (no default or namespace binding beside). */
function namedAllTypes(clause: string): boolean {
  const c = clause.trim();
  if (!c.startsWith('{') || !c.endsWith('}')) return false;
  const names = c
    .slice(1, -1)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return names.length > 0 && names.every((n) => /^type\s/.test(n));
}

/** The repository-relative file a specifier names, or null for a package (or a file that does not exist). */
export function resolveImport(root: string, fromFile: string, specifier: string, exists: (file: string) => boolean = fs.existsSync): string | null {
  let abs: string;
  if (specifier.startsWith('@/')) abs = path.join(root, specifier.slice(2));
  else if (specifier.startsWith('./') || specifier.startsWith('../')) abs = path.resolve(root, path.dirname(fromFile), specifier);
  else return null;
  const candidates = [abs, `${abs}.ts`, `${abs}.tsx`, path.join(abs, 'index.ts'), path.join(abs, 'index.tsx')];
  const found = candidates.find((c) => SOURCE_EXT.test(c) && exists(c)) ?? (SOURCE_EXT.test(abs) ? abs : null);
  return found ? path.relative(root, found).split(path.sep).join('/') : null;
}

const under = (file: string, dir: string): boolean => file === dir || file.startsWith(`${dir}/`);

/** Why importing `to` from `from` breaks a fence, or null when it does not. */
export function fenceViolation(from: string, to: string): string | null {
  if (under(from, 'components') && under(to, 'lib')) {
    if (to === 'lib/app/wire.ts' || under(to, 'lib/app/wire') || ALLOWED_SHARED.has(to)) return null;
    return 'components/ imports from lib/ only the wire types (lib/app/wire.ts, lib/app/wire/*)';
  }
  if (under(from, 'lib') && (under(to, 'app') || under(to, 'components'))) return 'lib/ imports neither app/ nor components/';
  if (under(from, 'lib') && !from.endsWith('.test.ts') && under(to, 'e2e'))
    return 'production code under lib/ imports nothing from e2e/ (test helpers live in e2e/support)';
  if (under(from, 'lib/inference') && (under(to, 'lib/http') || under(to, 'lib/app'))) return 'lib/inference/ imports neither lib/http/ nor lib/app/';
  return null;
}

/** Each cycle in a graph (one per strongly connected component of more than one file, or a file importing itself). */
export function findCycles(graph: Map<string, Set<string>>): string[][] {
  // Tarjan's algorithm, iterative over an explicit stack.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const sccs: string[][] = [];
  const nodes = [...graph.keys()].sort();
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: { node: string; edges: string[]; i: number }[] = [];
    const visit = (n: string) => {
      index.set(n, counter);
      low.set(n, counter);
      counter++;
      stack.push(n);
      onStack.add(n);
      work.push({ node: n, edges: [...(graph.get(n) ?? [])].sort(), i: 0 });
    };
    visit(start);
    while (work.length) {
      const top = work[work.length - 1];
      if (top.i < top.edges.length) {
        const m = top.edges[top.i++];
        if (!index.has(m)) visit(m);
        else if (onStack.has(m)) low.set(top.node, Math.min(low.get(top.node)!, index.get(m)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const scc: string[] = [];
        let m: string;
        do {
          m = stack.pop()!;
          onStack.delete(m);
          scc.push(m);
        } while (m !== top.node);
        if (scc.length > 1 || graph.get(top.node)?.has(top.node)) sccs.push(scc);
      }
    }
  }
  // One concrete loop per component: the shortest path from its first file back to itself.
  return sccs.map((scc) => {
    const members = new Set(scc);
    const first = [...scc].sort()[0];
    const prev = new Map<string, string>();
    const queue = [first];
    for (let q = 0; q < queue.length; q++) {
      for (const m of [...(graph.get(queue[q]) ?? [])].sort()) {
        if (!members.has(m)) continue;
        if (m === first) {
          const loop = [queue[q]];
          while (loop[0] !== first) loop.unshift(prev.get(loop[0])!);
          return [...loop, first];
        }
        if (!prev.has(m)) {
          prev.set(m, queue[q]);
          queue.push(m);
        }
      }
    }
    return [...scc, scc[0]];
  });
}

function listSources(root: string, dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) listSources(root, rel, out);
    else if (SOURCE_EXT.test(e.name) && !e.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

export interface Report {
  violations: string[];
  cycles: string[][];
  files: number;
}

export function checkTree(root: string): Report {
  const files = SOURCE_DIRS.filter((d) => fs.existsSync(path.join(root, d))).flatMap((d) => listSources(root, d));
  const violations: string[] = [];
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const refs = parseImports(fs.readFileSync(path.join(root, file), 'utf8'));
    if (under(file, 'lib')) graph.set(file, new Set());
    for (const ref of refs) {
      const to = resolveImport(root, file, ref.specifier);
      if (!to) continue;
      const why = fenceViolation(file, to);
      if (why) violations.push(`${file}:${ref.line} imports ${ref.specifier}: ${why}`);
      if (under(file, 'lib') && under(to, 'lib') && !ref.typeOnly && !ref.dynamic) graph.get(file)!.add(to);
    }
  }
  return { violations, cycles: findCycles(graph), files: files.length };
}

if (import.meta.main) {
  const root = path.resolve(import.meta.dirname, '..');
  const { violations, cycles, files } = checkTree(root);
  for (const v of violations) console.error(`import fence: ${v}`);
  for (const c of cycles) console.error(`import cycle: ${c.join(' → ')}`);
  const problems = violations.length + cycles.length;
  console.log(`check-imports: ${files} files, ${violations.length} fence violation(s), ${cycles.length} cycle(s)`);
  process.exit(problems ? 1 : 0);
}

#!/usr/bin/env node
// Import fences and import cycles, checked without dependencies (part of `npm run lint`).
//
// The house (docs/ARCHITECTURE.md) has three floors under lib/:
//   - capabilities: one folder each (CAPABILITIES below) with its schema, pipeline, the routes of both APIs, its
//     browser wire types and its tests;
//   - the domain they stand on: every other folder and file under lib/ (the store, the catalogue, engines by kind,
//     billing and metering, limits, jobs, identity, the route kind in lib/http, …);
//   - the house itself (HOUSE): the composition root and route tables that put capabilities together.
// Fences (each import specifier resolved: relative paths and the `@/` alias; packages are not fenced here):
//   - a capability imports no other capability (what two need goes down a floor), except the one declared layer:
//     responses is OpenAI's Responses API over chat's pipeline (BUILT_ON);
//   - the domain imports no capability, except lib/config.ts gathering each capability's settings (`config.ts`),
//     and lib/wire.ts re-exporting each capability's browser wire types;
//   - nothing below the house imports it, except the `Service` type handlers receive (type-only, erased at run time);
//   - components/ imports from lib/ only wire types (lib/wire.ts, a capability's wire*.ts), ALLOWED_SHARED and the
//     types of the route map (lib/http/app-route-map.ts);
//   - lib/ imports neither app/ nor components/;
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

/** The app's route map: the browser's client imports its types (only). */
const ROUTE_MAP = 'lib/http/app-route-map.ts';

/** The capabilities: lib/<name>/ each. */
export const CAPABILITIES = new Set(['chat', 'responses', 'embeddings', 'images', 'audio', 'video', 'account', 'keys', 'operator', 'crypto-rpc']);

/** The one declared layer between capabilities: responses translates to and from chat's pipeline. */
const BUILT_ON: Record<string, string> = { responses: 'chat' };

/** The composition root and the route tables. */
export const HOUSE = new Set([
  'lib/service.ts',
  'lib/http/server.ts',
  'lib/http/api.ts',
  'lib/http/app.ts',
  'lib/http/app-route-map.ts',
  'lib/http/app-backend.ts',
]);

/** The capability a lib/ file belongs to, or null for the domain and the house. */
export function capabilityOf(file: string): string | null {
  const parts = file.split('/');
  return parts[0] === 'lib' && parts.length > 2 && CAPABILITIES.has(parts[1]) ? parts[1] : null;
}

const isHouse = (file: string): boolean => HOUSE.has(file) || file.startsWith('lib/cli/');
const isWire = (file: string): boolean => file === 'lib/wire.ts' || /^lib\/[^/]+\/wire(-[\w-]+)?\.ts$/.test(file);

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

/** Why importing `to` from `from` breaks a fence, or null when it does not. `typeOnly`: the import is erased. */
export function fenceViolation(from: string, to: string, typeOnly = false): string | null {
  if (under(from, 'components') && under(to, 'lib')) {
    if (isWire(to) || ALLOWED_SHARED.has(to)) return null;
    // The route map's types check the client's calls against the handlers; erased, they bring no server code along.
    if (typeOnly && to === ROUTE_MAP) return null;
    return "components/ imports from lib/ only wire types (lib/wire.ts, a capability's wire*.ts) and the route map's types";
  }
  if (under(from, 'lib') && (under(to, 'app') || under(to, 'components'))) return 'lib/ imports neither app/ nor components/';
  if (!under(from, 'lib')) return null;
  const test = from.endsWith('.test.ts');
  if (!test && under(to, 'e2e')) return 'production code under lib/ imports nothing from e2e/ (test helpers live in e2e/support)';
  if (test || !under(to, 'lib')) return null;
  if (isHouse(to) && !isHouse(from)) {
    if (typeOnly && to === 'lib/service.ts') return null;
    return 'only the house imports the house (lib/service.ts, the route tables, the CLI); below it, only the Service type';
  }
  const mine = capabilityOf(from);
  const theirs = capabilityOf(to);
  if (!theirs || mine === theirs || isHouse(from)) return null;
  if (mine) return BUILT_ON[mine] === theirs ? null : `a capability imports no other capability (${mine} → ${theirs}): move what both need down a floor`;
  if (from === 'lib/config.ts' && to.endsWith('/config.ts')) return null;
  if (from === 'lib/wire.ts' && isWire(to)) return null;
  return `the domain imports no capability (${from.split('/').slice(0, 2).join('/')} → ${theirs})`;
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
      const why = fenceViolation(file, to, ref.typeOnly);
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

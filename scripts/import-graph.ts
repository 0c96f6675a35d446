// The repository's own import graph, read statically: which files a file reaches through relative and `@/` imports
// (tsconfig `"@/*": ["./*"]`) and CSS `@import`s. Packages are not followed. Used by scripts/test.ts to know the app
// build's inputs (scripts/build-inputs.ts) and which test files start no servers (scripts/unit-tests.ts).
import fs from 'node:fs';
import path from 'node:path';
import { parseImports, stripComments } from './check-imports.ts';

const SCRIPT = /\.(ts|tsx|mts|cts|js|mjs)$/;

/** The repository-relative file a specifier names (trying `.ts`, `.tsx` and `index.ts(x)`), or null for a package. */
export function resolveSpecifier(root: string, fromFile: string, specifier: string): string | null {
  let abs: string;
  if (specifier.startsWith('@/')) abs = path.join(root, specifier.slice(2));
  else if (specifier.startsWith('./') || specifier.startsWith('../')) abs = path.resolve(root, path.dirname(fromFile), specifier);
  else return null;
  const candidates = [abs, `${abs}.ts`, `${abs}.tsx`, path.join(abs, 'index.ts'), path.join(abs, 'index.tsx')];
  const found = candidates.find((c) => fs.statSync(c, { throwIfNoEntry: false })?.isFile());
  return found ? path.relative(root, found).split(path.sep).join('/') : null;
}

/** The specifiers a file names: every import, re-export and import() of a script; every `@import` of a stylesheet. */
export function specifiersIn(file: string, source: string): string[] {
  if (file.endsWith('.css')) {
    // @import "x.css" / @import url("x.css"). CSS may name a sibling without `./`: such a name is tried as a relative
    // path too (a package such as "tailwindcss" then resolves to nothing and is dropped).
    const specs = [...stripComments(source).matchAll(/@import\s+(?:url\(\s*)?(['"])([^'"\n]+)\1/g)].map((m) => m[2]);
    return specs.flatMap((s) => (/^[./@]/.test(s) ? [s] : [s, `./${s}`]));
  }
  if (!SCRIPT.test(file)) return [];
  return parseImports(source).map((r) => r.specifier);
}

/** Reads and resolves each file's imports once, however many walks ask for it. */
export class ImportGraph {
  readonly root: string;
  private edges = new Map<string, string[]>();

  constructor(root: string) {
    this.root = root;
  }

  /** The repository files `file` imports directly (those that exist; packages left out). */
  importsOf(file: string): string[] {
    let out = this.edges.get(file);
    if (!out) {
      const source = fs.readFileSync(path.join(this.root, file), 'utf8');
      out = [...new Set(specifiersIn(file, source).flatMap((s) => resolveSpecifier(this.root, file, s) ?? []))];
      this.edges.set(file, out);
    }
    return out;
  }

  /** `starts` and every file they reach, in the order first reached. */
  reachable(starts: Iterable<string>): Set<string> {
    const seen = new Set<string>();
    const queue = [...starts];
    for (let i = 0; i < queue.length; i++) {
      const f = queue[i];
      if (seen.has(f)) continue;
      seen.add(f);
      for (const g of this.importsOf(f)) if (!seen.has(g)) queue.push(g);
    }
    return seen;
  }
}

/** Every file under `dir` (repository-relative paths), skipping node_modules and dot-folders. */
export function listFiles(root: string, dir: string, out: string[] = []): string[] {
  if (!fs.existsSync(path.join(root, dir))) return out;
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) listFiles(root, rel, out);
    else if (e.isFile()) out.push(rel);
  }
  return out;
}

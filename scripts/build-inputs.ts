// What the Next.js app build (`npm run build`) reads from this repository, so that scripts/test.ts rebuilds before the
// browser tests exactly when one of those files changed since the last build (.next/BUILD_ID).
//
// Inputs: every file under app/ and components/, every file they reach through relative and `@/` imports (lib/ code
// the browser uses, such as the wire types or lib/wallet/networks.ts, and the CSS they import), public/, and the build's
// configuration and lockfile. Server-only code (route handlers, stores, …) is not an input: the app talks to it over HTTP.
// (Tailwind also scans the tree for class names, but a class used only in a file the app never imports styles nothing.)
import fs from 'node:fs';
import path from 'node:path';
import { ImportGraph, listFiles } from './import-graph.ts';

/** Walked whole: a file added or deleted anywhere in them changes their folder's mtime too. */
const TREES = ['app', 'components', 'public'];
const CONFIG = ['next.config.mjs', 'postcss.config.mjs', 'package-lock.json', 'tsconfig.json'];

/** The repository-relative files and folders the app build reads. */
export function buildInputs(root: string): string[] {
  const entries = ['app', 'components'].flatMap((d) => listFiles(root, d));
  const reached = new ImportGraph(root).reachable(entries);
  const folders = TREES.flatMap((t) => listFolders(root, t));
  return [...new Set([...folders, ...listFiles(root, 'public'), ...reached, ...CONFIG])];
}

/** True when there is no build in `distDir` or an input changed after it was made. */
export function buildIsStale(root: string, distDir = '.next'): boolean {
  const built = fs.statSync(path.join(root, distDir, 'BUILD_ID'), { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return true;
  return buildInputs(root).some((f) => (fs.statSync(path.join(root, f), { throwIfNoEntry: false })?.mtimeMs ?? 0) > built);
}

function listFolders(root: string, dir: string, out: string[] = []): string[] {
  if (!fs.existsSync(path.join(root, dir))) return out;
  out.push(dir);
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    if (e.isDirectory() && e.name !== 'node_modules' && !e.name.startsWith('.')) listFolders(root, `${dir}/${e.name}`, out);
  }
  return out;
}

if (import.meta.main) {
  const root = path.resolve(import.meta.dirname, '..');
  const t = performance.now();
  const inputs = buildInputs(root);
  const stale = buildIsStale(root);
  for (const f of inputs) console.log(f);
  console.log(`build-inputs: ${inputs.length} inputs, build ${stale ? 'stale' : 'fresh'} (${Math.round(performance.now() - t)} ms)`);
}

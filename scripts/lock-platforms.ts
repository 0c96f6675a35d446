#!/usr/bin/env node
// Records in package-lock.json every optional dependency npm left out of it (`node scripts/lock-platforms.ts` after
// changing dependencies). Packages such as next, node-llama-cpp, Tailwind's oxide, Biome, anvil and litesvm list a
// build per platform as optional dependencies; when the registry has no build of that exact version for another
// platform (a mirror that lags npmjs), npm records none, and `npm ci` then refuses the lockfile ("Missing: … from
// lock file") although it would never install those builds here. An entry with the version the parent asks for,
// marked optional, is what `npm ci` checks; `npm install` keeps such entries, and setup omits optional packages.
import fs from 'node:fs';
import path from 'node:path';

type Entry = { version?: string; optional?: boolean; dev?: boolean; optionalDependencies?: Record<string, string> };

const file = path.join(import.meta.dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8')) as { packages: Record<string, Entry> };
const packages = lock.packages;

/** Where Node would find `name` from the package at `from`: its own node_modules, then each ancestor's. */
function located(from: string, name: string): boolean {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
    if (packages[dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`]) return true;
    if (!dir) return false;
  }
}

const added: string[] = [];
for (const [at, entry] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    if (located(at, name) || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec)) continue;
    packages[`node_modules/${name}`] = { version: spec, ...(entry.dev ? { dev: true } : {}), optional: true };
    added.push(`${name}@${spec}`);
  }
}
const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en'))));
fs.writeFileSync(file, `${JSON.stringify({ ...lock, packages: sorted }, null, 2)}\n`);
console.log(added.length ? `lock-platforms: recorded ${added.join(', ')}` : 'lock-platforms: nothing missing');

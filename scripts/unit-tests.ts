// Which test files make the fast tier (`npm run test:unit`): those that need no server, database or browser, picked by
// a static scan of imports each time it runs, so a new test file is placed without a list to keep.
//
// The rule. Test files are `*.test.ts` under lib/, components/ and scripts/ (everything under e2e/ is not unit). A file
// is not unit when it, or any file it reaches through relative and `@/` imports, is
//   - under e2e/ (the HTTP harness, e2e/support/pg.ts, the app, chat and limits helpers: every test helper lives in
//     e2e/support, which the import fences enforce);
//   - scripts/services.ts (starts PostgreSQL and Redis);
// or when the test file itself opens PostgreSQL or Redis (`connectRedis(`, a `redis://` or `postgres://` URL) or
// spawns the server (it uses node:child_process and names serve.ts).
import fs from 'node:fs';
import path from 'node:path';
import { ImportGraph, listFiles } from './import-graph.ts';

const TEST_DIRS = ['lib', 'components', 'scripts'];

/** Why reaching `file` makes a test not unit, or null. */
export function serverHelper(file: string): string | null {
  if (file.startsWith('e2e/')) return 'e2e helper';
  if (file === 'scripts/services.ts') return 'starts PostgreSQL and Redis';
  return null;
}

/** Why a test file's own source needs services, or null. */
export function opensServices(source: string): string | null {
  if (/\bconnectRedis\s*\(|\b(redis|rediss|postgres|postgresql):\/\//.test(source)) return 'opens PostgreSQL or Redis';
  if (/['"](node:)?child_process['"]/.test(source) && /\bserve\.ts\b/.test(source)) return 'spawns the server';
  return null;
}

export interface Classified {
  unit: string[];
  /** Each test file left out, with the reason (for `node scripts/unit-tests.ts`). */
  other: Map<string, string>;
}

export function classifyTests(root: string): Classified {
  const graph = new ImportGraph(root);
  const tests = TEST_DIRS.flatMap((d) => listFiles(root, d)).filter((f) => f.endsWith('.test.ts'));
  const unit: string[] = [];
  const other = new Map<string, string>();
  for (const test of tests.sort()) {
    let why = opensServices(fs.readFileSync(path.join(root, test), 'utf8'));
    for (const f of why ? [] : graph.reachable([test])) {
      const helper = serverHelper(f);
      if (helper) {
        why = `imports ${f} (${helper})`;
        break;
      }
    }
    if (why) other.set(test, why);
    else unit.push(test);
  }
  return { unit, other };
}

if (import.meta.main) {
  const t = performance.now();
  const { unit, other } = classifyTests(path.resolve(import.meta.dirname, '..'));
  for (const f of unit) console.log(`unit   ${f}`);
  for (const [f, why] of other) console.log(`server ${f}: ${why}`);
  console.log(`unit-tests: ${unit.length} unit, ${other.size} not (${Math.round(performance.now() - t)} ms)`);
}

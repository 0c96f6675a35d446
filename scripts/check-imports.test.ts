import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { capabilityOf, checkTree, fenceViolation, findCycles, parseImports, resolveImport } from './check-imports.ts';

test('parseImports: static, side-effect, re-export and dynamic imports, type-only ones marked', () => {
  const refs = parseImports(`
import fs from 'node:fs';
import type { A } from './a.ts';
import { type B, type C as D } from './b.ts';
import E, { type F } from './e.ts';
import {
  g,
  type H,
} from '@/lib/g.ts';
import * as ns from "../ns.ts";
import './side-effect.ts';
export { x } from './x.ts';
export type { Y } from './y.ts';
export * from './star.ts';
export * as all from './all.ts';
const lazy = () => import('./lazy.ts');
type T = typeof import('./typeof.ts');
// import { commented } from './comment.ts';
/* export * from './block-comment.ts'; */
const s = "import { inString } from './in-string.ts'";
`);
  const got = refs.map((r) => `${r.specifier}${r.typeOnly ? ' type' : ''}${r.dynamic ? ' dynamic' : ''}`);
  assert.deepEqual(got, [
    'node:fs',
    './a.ts type',
    './b.ts type',
    './e.ts',
    '@/lib/g.ts',
    '../ns.ts',
    './side-effect.ts',
    './x.ts',
    './y.ts type',
    './star.ts',
    './all.ts',
    './lazy.ts dynamic',
    './typeof.ts type dynamic',
    // The string literal's text is still source text to a regex; a false positive here only ever adds an edge.
    './in-string.ts',
  ]);
  assert.equal(refs.find((r) => r.specifier === '@/lib/g.ts')?.line, 6);
});

// biome-ignore lint/suspicious/noTemplateCurlyInString: the ${} is the subject of the test
test('parseImports: template literals with ${} do not hide the code after them', () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: source text holding a template literal
  const refs = parseImports("const a = `x ${'}'} // not a comment ${ {b: 1}.b }`;\nimport { c } from './c.ts';\n");
  assert.deepEqual(
    refs.map((r) => r.specifier),
    ['./c.ts'],
  );
});

test('resolveImport: relative paths and the @/ alias, packages ignored', () => {
  const root = '/repo';
  const exists = (p: string) => ['/repo/lib/a.ts', '/repo/lib/dir/index.ts', '/repo/components/x.tsx'].includes(p);
  assert.equal(resolveImport(root, 'lib/b/c.ts', '../a.ts', exists), 'lib/a.ts');
  assert.equal(resolveImport(root, 'components/y.tsx', '@/lib/a.ts', exists), 'lib/a.ts');
  assert.equal(resolveImport(root, 'lib/b.ts', './dir', exists), 'lib/dir/index.ts');
  assert.equal(resolveImport(root, 'components/y.tsx', './x', exists), 'components/x.tsx');
  assert.equal(resolveImport(root, 'lib/b.ts', 'zod', exists), null);
  assert.equal(resolveImport(root, 'lib/b.ts', 'node:fs', exists), null);
});

test('fenceViolation: the browser, the floors, the house and the tests', () => {
  // The browser: wire types only.
  assert.equal(fenceViolation('components/chat/a.tsx', 'lib/wire.ts'), null);
  assert.equal(fenceViolation('components/chat/a.tsx', 'lib/chat/wire.ts'), null);
  assert.equal(fenceViolation('components/chat/a.tsx', 'lib/keys/wire-list.ts'), null);
  assert.equal(fenceViolation('components/chat/a.tsx', 'lib/wallet/networks.ts'), null);
  assert.equal(fenceViolation('components/chat/a.tsx', 'components/ui/b.tsx'), null);
  assert.match(fenceViolation('components/chat/a.tsx', 'lib/chat/wired.ts') ?? '', /wire types/);
  assert.match(fenceViolation('components/chat/a.tsx', 'lib/db/store.ts') ?? '', /wire types/);
  assert.match(fenceViolation('lib/users/users.ts', 'app/layout.tsx') ?? '', /neither app/);
  assert.match(fenceViolation('lib/users/users.ts', 'components/ui/b.tsx') ?? '', /neither app/);
  // Capabilities stand on the domain, never on each other (but the declared layer).
  assert.equal(fenceViolation('lib/chat/pipeline.ts', 'lib/billing/metered.ts'), null);
  assert.equal(fenceViolation('lib/chat/app/x.ts', 'lib/chat/schema.ts'), null);
  assert.match(fenceViolation('lib/images/pipeline.ts', 'lib/chat/pipeline.ts') ?? '', /images → chat/);
  assert.match(fenceViolation('lib/images/pipeline.ts', 'lib/chat/events.ts', true) ?? '', /no other capability/);
  assert.equal(fenceViolation('lib/responses/run.ts', 'lib/chat/pipeline.ts'), null);
  assert.match(fenceViolation('lib/chat/x.ts', 'lib/responses/run.ts') ?? '', /chat → responses/);
  // The domain imports no capability.
  assert.match(fenceViolation('lib/engines/images/x.ts', 'lib/images/requests.ts', true) ?? '', /domain imports no capability/);
  assert.equal(fenceViolation('lib/config.ts', 'lib/crypto-rpc/config.ts'), null);
  assert.match(fenceViolation('lib/config.ts', 'lib/crypto-rpc/proxy.ts') ?? '', /domain imports no capability/);
  assert.equal(fenceViolation('lib/wire.ts', 'lib/chat/wire.ts'), null);
  // The house imports anything; below it only the Service type.
  assert.equal(fenceViolation('lib/http/app-backend.ts', 'lib/chat/app-routes.ts'), null);
  assert.equal(fenceViolation('lib/http/context.ts', 'lib/service.ts', true), null);
  assert.match(fenceViolation('lib/http/context.ts', 'lib/service.ts') ?? '', /only the house/);
  assert.match(fenceViolation('lib/chat/pipeline.ts', 'lib/http/api.ts', true) ?? '', /only the house/);
  // Tests use e2e/support; production code never does.
  assert.equal(fenceViolation('app/api/x/route.ts', 'lib/http/server.ts'), null);
  assert.match(fenceViolation('lib/keys/support.ts', 'e2e/support/harness.ts') ?? '', /nothing from e2e/);
  assert.equal(fenceViolation('lib/keys/app-routes.test.ts', 'e2e/support/harness.ts'), null);
  assert.equal(capabilityOf('lib/chat/app/stream.ts'), 'chat');
  assert.equal(capabilityOf('lib/billing/ledger.ts'), null);
});

test('findCycles: one loop per strongly connected component, self-imports included', () => {
  const g = new Map<string, Set<string>>([
    ['a', new Set(['b'])],
    ['b', new Set(['c'])],
    ['c', new Set(['a', 'd'])],
    ['d', new Set()],
    ['e', new Set(['e'])],
    ['f', new Set(['d'])],
  ]);
  const cycles = findCycles(g).map((c) => c.join('>'));
  assert.deepEqual(cycles.sort(), ['a>b>c>a', 'e>e']);
  assert.deepEqual(
    findCycles(
      new Map([
        ['x', new Set(['y'])],
        ['y', new Set()],
      ]),
    ),
    [],
  );
});

test('checkTree: fences and value cycles in a small tree (type-only and dynamic imports close no cycle)', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'check-imports-'));
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  try {
    write('lib/a.ts', "import { b } from './b.ts';\nexport const a = 1;\n");
    write('lib/b.ts', "import { a } from '@/lib/a.ts';\nexport const b = a;\n");
    write('lib/c.ts', "import type { D } from './d.ts';\nexport const c = 1;\n");
    write('lib/d.ts', "import { c } from './c.ts';\nexport type D = typeof c;\nexport const load = () => import('./e.ts');\n");
    write('lib/e.ts', "import { load } from './d.ts';\n");
    write('lib/engines/x.ts', "import { s } from '../http/server.ts';\nimport type { P } from '../images/pipeline.ts';\n");
    write('lib/images/pipeline.ts', "import { q } from '../video/request.ts';\nexport type P = 1;\n");
    write('lib/video/request.ts', 'export const q = 1;\n');
    write('lib/http/server.ts', 'export const s = 1;\n');
    write(
      'components/v.tsx',
      "import type { W } from '@/lib/wire.ts';\nimport { a } from '../lib/a.ts';\nimport type { M } from '@/lib/http/app-route-map.ts';\nimport { call } from '@/lib/http/app-route-map.ts';\n",
    );
    write('lib/http/app-route-map.ts', 'export type M = 1;\nexport const call = 1;\n');
    write('lib/wire.ts', 'export type W = 1;\n');
    const r = checkTree(root);
    assert.deepEqual(r.violations.sort(), [
      "components/v.tsx:2 imports ../lib/a.ts: components/ imports from lib/ only wire types (lib/wire.ts, a capability's wire*.ts) and the route map's types",
      // The route map's types may come to the browser; its values may not.
      "components/v.tsx:4 imports @/lib/http/app-route-map.ts: components/ imports from lib/ only wire types (lib/wire.ts, a capability's wire*.ts) and the route map's types",
      'lib/engines/x.ts:1 imports ../http/server.ts: only the house imports the house (lib/service.ts, the route tables, the CLI); below it, only the Service type',
      'lib/engines/x.ts:2 imports ../images/pipeline.ts: the domain imports no capability (lib/engines → images)',
      'lib/images/pipeline.ts:1 imports ../video/request.ts: a capability imports no other capability (images → video): move what both need down a floor',
    ]);
    assert.deepEqual(r.cycles, [['lib/a.ts', 'lib/b.ts', 'lib/a.ts']]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

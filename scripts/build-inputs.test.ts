// The app build's inputs and staleness on a small temporary tree: what the app imports counts, wherever it lives;
// server-only lib/ code does not.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { buildInputs, buildIsStale } from './build-inputs.ts';
import { ImportGraph, specifiersIn } from './import-graph.ts';

let root: string;

/** Writes the files, then dates every one (and every folder) an hour back, with the build made after them. */
function makeTree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-build-inputs-'));
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), text);
  }
  const past = new Date(Date.now() - 3600_000);
  const age = (p: string) => {
    if (fs.statSync(p).isDirectory()) for (const e of fs.readdirSync(p)) age(path.join(p, e));
    fs.utimesSync(p, past, past);
  };
  age(dir);
  fs.mkdirSync(path.join(dir, '.next'));
  fs.writeFileSync(path.join(dir, '.next/BUILD_ID'), 'x');
  return dir;
}

/** Marks a file changed after the build. */
const touch = (f: string) => {
  const future = new Date(Date.now() + 60_000);
  fs.utimesSync(path.join(root, f), future, future);
};

before(() => {
  root = makeTree({
    'app/layout.tsx': "import './globals.css';\nimport { Shell } from '@/components/shell';\nexport default Shell;\n",
    'app/globals.css': '@import "tailwindcss";\n@import "./theme.css";\n',
    'app/theme.css': ':root { --x: 1; }\n',
    'app/page.tsx': "export { Chat as default } from '../components/chat/chat';\n",
    'components/shell/index.tsx': "import { CHAINS } from '@/lib/wallet/networks.ts';\nexport const Shell = () => CHAINS;\n",
    'components/chat/chat.tsx': "import type { Msg } from '@/lib/app/wire';\nexport const Chat = () => import('./lazy.ts');\nexport type { Msg };\n",
    'components/chat/lazy.ts': "import { format } from '../../lib/text/format';\nexport default format;\n",
    'lib/wallet/networks.ts': "import { z } from 'zod';\nexport const CHAINS = z;\n",
    'lib/app/wire.ts': 'export interface Msg { text: string }\n',
    'lib/app/wire/unused.ts': 'export const unused = 1;\n',
    'lib/app/routes/chat.ts': "import type { Msg } from '../wire.ts';\nexport const route = (m: Msg) => m;\n",
    'lib/text/format.ts': 'export const format = (s: string) => s;\n',
    'public/logo.txt': 'logo\n',
    'next.config.mjs': 'export default {};\n',
    'package-lock.json': '{}\n',
  });
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('inputs: what app/ and components/ reach through relative, @/, index, extensionless, re-export, import() and CSS imports', () => {
  const inputs = new Set(buildInputs(root));
  for (const f of [
    'app/layout.tsx',
    'app/theme.css',
    'components/shell/index.tsx',
    'components/chat/lazy.ts',
    'lib/wallet/networks.ts',
    'lib/app/wire.ts',
    'lib/text/format.ts',
    'public/logo.txt',
    'next.config.mjs',
    'package-lock.json',
  ]) {
    assert.ok(inputs.has(f), `${f} is an input`);
  }
  assert.ok(!inputs.has('lib/app/routes/chat.ts'), 'server-only lib/app code is not an input');
  assert.ok(!inputs.has('lib/app/wire/unused.ts'), 'a lib file the app never imports is not an input');
});

test('stale: fresh after the build; a lib file the app imports makes it stale, one it does not import does not', () => {
  assert.equal(buildIsStale(root), false);
  touch('lib/app/routes/chat.ts');
  touch('lib/app/wire/unused.ts');
  assert.equal(buildIsStale(root), false, 'server-only changes need no rebuild');
  touch('lib/text/format.ts');
  assert.equal(buildIsStale(root), true, 'a file outside the old fixed list, imported by the app, needs a rebuild');
});

test('stale: no build at all', () => {
  assert.equal(buildIsStale(root, '.next-none'), true);
});

test('specifiersIn: script imports and CSS @imports; comments and packages left out by resolution', () => {
  assert.deepEqual(specifiersIn('a.css', '/* @import "gone.css"; */\n@import "tailwindcss";\n@import url("./b.css");\n@import "c.css";'), [
    'tailwindcss',
    './tailwindcss',
    './b.css',
    'c.css',
    './c.css',
  ]);
  assert.deepEqual(specifiersIn('a.ts', "// import './no.ts'\nimport x from './x';\nexport * from '@/y';\nconst z = import('./z.ts');"), [
    './x',
    '@/y',
    './z.ts',
  ]);
  assert.deepEqual(specifiersIn('logo.svg', "import './no.ts'"), []);
  assert.deepEqual(new ImportGraph(root).importsOf('app/globals.css'), ['app/theme.css']);
});

// The fast tier's pick on a small temporary tree: a test is unit unless it (or what it imports) reaches a server helper.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { classifyTests, opensServices } from './unit-tests.ts';

test('classifyTests: server helpers reached directly or through other files, and tests that open services, are not unit', () => {
  // The scan reads string literals as source too: this file's own text must not reach a real helper or match the rule
  // (so the fixture's helpers have names the repository lacks, and the Redis line is spelled in pieces).
  const opensRedis = `const r = await ${'connect'}Redis(${"'redis:"}//127.0.0.1:6379');\n`;
  const files: Record<string, string> = {
    'lib/a.ts': 'export const a = 1;\n',
    'lib/a.test.ts': "import { a } from './a.ts';\n",
    'lib/via-helper.test.ts': "import { h } from './helper.ts';\n",
    'lib/helper.ts': "export { startHarness as h } from '../e2e/support/fixture-harness.ts';\n",
    'e2e/support/fixture-harness.ts': 'export const startHarness = 1;\n',
    'lib/keys/x.test.ts': "import { caller } from '../../e2e/support/fixture-app.ts';\n",
    'e2e/support/fixture-app.ts': 'export const caller = 1;\n',
    'lib/limits/r.test.ts': "import { k } from '../../e2e/support/limits/fixture-keys.ts';\n",
    'e2e/support/limits/fixture-keys.ts': 'export const k = 1;\n',
    'lib/redis.test.ts': opensRedis,
    'scripts/sub/s.test.ts': "import { ensureServices } from '../services.ts';\n",
    'scripts/services.ts': 'export const ensureServices = 1;\n',
    'components/c.test.ts': "// import '../e2e/support/fixture-harness.ts' (a comment: not an import)\nimport { a } from '@/lib/a.ts';\n",
    'e2e/api/e.test.ts': "import { a } from '../../lib/a.ts';\n",
  };
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-unit-tests-'));
  try {
    for (const [f, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      fs.writeFileSync(path.join(root, f), text);
    }
    const { unit, other } = classifyTests(root);
    assert.deepEqual(unit, ['components/c.test.ts', 'lib/a.test.ts']);
    assert.deepEqual([...other.keys()].sort(), [
      'lib/keys/x.test.ts',
      'lib/limits/r.test.ts',
      'lib/redis.test.ts',
      'lib/via-helper.test.ts',
      'scripts/sub/s.test.ts',
    ]);
    assert.match(other.get('lib/via-helper.test.ts')!, /e2e\/support\/fixture-harness\.ts/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('opensServices: a Redis or PostgreSQL URL, or spawning the server; naming serve.ts alone is not', () => {
  // Spelled in pieces, as above, so that this file is not caught by its own fixtures.
  const cp = `'node:${'child'}_process'`;
  assert.ok(opensServices(`const url = '${'postgres'}://localhost/lagoon';`));
  assert.ok(opensServices(`import { spawn } from ${cp};\nspawn(process.execPath, ['scripts/${'serve'}.ts']);`));
  assert.equal(opensServices(`const files = ['scripts/${'serve'}.ts'];`), null);
  assert.equal(opensServices(`import { execFile } from ${cp};\nexecFile('ffmpeg');`), null);
});

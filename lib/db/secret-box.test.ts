// Sealed secrets: they open only with the same key and on the same row; an altered or cut value does not open; the
// key is read from LAGOON_SECRETS_KEY's forms, or made once in the data directory (mode 0600) and kept.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { dataDirSecretsKey, isSealed, parseSecretsKey, secretBox } from './secret-box.ts';

const SECRET = 'sk-upstream-0123456789abcdef';

test('a sealed value opens with its key and context only, and is never the same twice', () => {
  const box = secretBox(crypto.randomBytes(32));
  const a = box.seal(SECRET, 'row-a');
  const b = box.seal(SECRET, 'row-a');
  assert.ok(isSealed(a) && !a.includes(SECRET));
  assert.notEqual(a, b, 'a fresh nonce each time');
  assert.equal(box.open(a, 'row-a'), SECRET);
  assert.throws(() => box.open(a, 'row-b'), 'copied onto another row');
  assert.throws(() => secretBox(crypto.randomBytes(32)).open(a, 'row-a'), 'another key');
  const raw = Buffer.from(a.slice('sealed:v1:'.length), 'base64');
  raw[raw.length - 1] ^= 1;
  assert.throws(() => box.open(`sealed:v1:${raw.toString('base64')}`, 'row-a'), 'altered');
  assert.throws(() => box.open('sealed:v1:AAAA', 'row-a'), 'cut short');
  assert.throws(() => box.open(SECRET, 'row-a'), 'plain text is no sealed value');
  assert.equal(box.open(box.seal('', 'row-a'), 'row-a'), '');
});

test('LAGOON_SECRETS_KEY takes 32 bytes as hex or base64, nothing else', () => {
  const key = crypto.randomBytes(32);
  assert.deepEqual(parseSecretsKey(key.toString('hex')), key);
  assert.deepEqual(parseSecretsKey(` ${key.toString('base64')}\n`), key);
  for (const bad of ['', 'short', key.toString('hex').slice(2), crypto.randomBytes(31).toString('base64'), 'z'.repeat(64)])
    assert.throws(() => parseSecretsKey(bad), /32 bytes/, bad);
  assert.throws(() => secretBox(crypto.randomBytes(16)), /32 bytes/);
});

test('the data directory key is made once, private, and then read back', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-secrets-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const first = dataDirSecretsKey(dir);
  assert.equal(fs.statSync(path.join(dir, 'secrets.key')).mode & 0o777, 0o600);
  assert.deepEqual(dataDirSecretsKey(dir), first);
  fs.writeFileSync(path.join(dir, 'secrets.key'), 'not a key');
  assert.throws(() => dataDirSecretsKey(dir), /secrets\.key: must be 32 bytes/, 'a damaged key file stops the start, never replaced');
});

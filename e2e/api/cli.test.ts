// The operator CLI (`npx lagoon …`) on the same store a server uses.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, test } from 'node:test';
import { authenticate } from '../../lib/auth/keys.ts';
import { getBalances } from '../../lib/billing/ledger.ts';
import { MIGRATIONS } from '../../lib/db/migrations.ts';
import { openStore } from '../../lib/db/open.ts';

const run = promisify(execFile);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-cli-'));
const cli = (...args: string[]) => run(process.execPath, ['scripts/lagoon.ts', ...args], { env: { ...process.env, LAGOON_DATA_DIR: dataDir } });
const lastLine = (s: string) => s.trim().split('\n').at(-1)!;
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

test('account, key, credit and DIEM commands work on the shared store', async () => {
  const accountId = lastLine((await cli('account', 'create', '--name', 'Acme')).stdout);
  assert.match(accountId, /^[0-9a-f-]{36}$/);
  const secret = lastLine((await cli('key', 'create', '--account', accountId, '--type', 'ADMIN', '--description', 'ops key')).stdout);
  assert.match(secret, /^lgn_adm_[A-Za-z0-9]{40}$/);
  assert.match(lastLine((await cli('credit', 'grant', '--account', accountId, '--usd', '12.5')).stdout), /12\.500000/);
  assert.match(lastLine((await cli('diem', 'set', '--account', accountId, '--daily', '3')).stdout), /3\.000000/);
  assert.equal(lastLine((await cli('tier', 'set', '--account', accountId, '--tier', 'partner')).stdout), 'tier partner');
  const store = await openStore({ dataDir });
  try {
    const p = await authenticate(store, secret);
    assert.equal(p.accountId, accountId);
    assert.equal(p.keyType, 'ADMIN');
    assert.equal(p.accountTier, 'partner');
    const b = await getBalances(store, accountId);
    assert.deepEqual([b.usd, b.diem, b.diemDaily], [12_500_000, 3_000_000, 3_000_000]);
  } finally {
    await store.close();
  }
});

test('account list and key list show what exists, never a secret', async () => {
  const accountId = lastLine((await cli('account', 'create', '--name', 'Listed Ltd')).stdout);
  const secret = lastLine((await cli('key', 'create', '--account', accountId, '--type', 'INFERENCE', '--description', 'listed key')).stdout);
  await cli('credit', 'grant', '--account', accountId, '--usd', '2');
  const accounts = (await cli('account', 'list')).stdout.trim().split('\n');
  const row = accounts.find((l) => l.startsWith(accountId))?.split('\t');
  assert.deepEqual(row?.slice(0, 5), [accountId, 'Listed Ltd', 'default', 'usd 2.000000', 'diem 0.000000']);
  const keys = (await cli('key', 'list', '--account', accountId)).stdout;
  const [line] = keys.trim().split('\n');
  assert.deepEqual(line.split('\t').slice(1, 5), ['INFERENCE', 'active', `…${secret.slice(-6)}`, 'listed key']);
  assert.ok(!keys.includes(secret), 'key list printed a secret');
  await assert.rejects(cli('key', 'list'), (e: any) => e.code === 2 && /--account is required/.test(e.stderr));
});

test('--help, -h and help print the usage of every command and exit 0', async () => {
  for (const flag of [['--help'], ['-h'], ['help'], ['account', '--help']]) {
    const { stdout } = await cli(...flag);
    for (const command of [
      'account create',
      'account list',
      'key create',
      'key list',
      'credit grant',
      'diem set',
      'tier set',
      'models list',
      'model add',
      'db migrate',
    ])
      assert.match(stdout, new RegExp(`^  ${command}`, 'm'), `${flag.join(' ')} lacks ${command}`);
  }
});

test('db migrate brings a new store to the latest schema, and again changes nothing', async () => {
  const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-cli-migrate-'));
  try {
    const migrate = () => run(process.execPath, ['scripts/lagoon.ts', 'db', 'migrate'], { env: { ...process.env, LAGOON_DATA_DIR: fresh } });
    const latest = String(Math.max(...MIGRATIONS.map((m) => m.version)));
    assert.equal(lastLine((await migrate()).stdout), latest);
    assert.equal(lastLine((await migrate()).stdout), latest);
    await assert.rejects(cli('db', 'migrate', '--force'), (e: any) => e.code === 2);
  } finally {
    fs.rmSync(fresh, { recursive: true, force: true });
  }
});

test('models list prints the catalogue', async () => {
  const out = (await cli('models', 'list')).stdout;
  assert.match(out, /^lagoon-demo\ttext\tXS/m);
});

test('bad input exits non-zero with a usage message', async () => {
  await assert.rejects(cli('key', 'create', '--account', 'nope', '--type', 'INFERENCE'), (e: any) => e.code === 2 && /no account/.test(e.stderr));
  await assert.rejects(cli('credit', 'grant', '--account', 'x', '--usd', '-1'), (e: any) => e.code === 2);
  await assert.rejects(cli('frobnicate'), (e: any) => e.code === 2 && /usage:/.test(e.stderr));
  await assert.rejects(cli('account', 'create', '--bogus'), (e: any) => e.code === 2);
});

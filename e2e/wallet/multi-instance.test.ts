// Two server processes sharing one PostgreSQL database: one payment replayed against both (at once, and one after
// the other) is settled and credited once, and one sign-in header is accepted by one of them only.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { scriptedModel } from '../support/harness.ts';
import { type Anvil, startAnvil } from '../support/chains/anvil.ts';
import { createTestDatabase } from '../support/pg.ts';
import { type ServerProcess, startServers, stopServers } from '../support/processes.ts';
import { type ScriptedEngine, startScriptedEngine } from '../support/scripted-engine.ts';
import { BASE_PAY_TO, evmPayer, evmWallet, signInHeader, signPayment, walletEnv } from './clients.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-wallet-multi-'));
let anvil: Anvil;
let engine: ScriptedEngine;
let db: { url: string; drop(): Promise<void> };
let servers: ServerProcess[] = [];

before(async () => {
  [anvil, engine, db] = await Promise.all([startAnvil(), startScriptedEngine(), createTestDatabase()]);
  const models = path.join(dir, 'models.json');
  fs.writeFileSync(models, JSON.stringify({ models: [scriptedModel('shared', engine.url)] }));
  const env = { ...walletEnv({ anvil }), DATABASE_URL: db.url, LAGOON_MODELS: models, LAGOON_NO_APP: '1', LAGOON_DATA_DIR: dir };
  servers = await startServers(2, env);
});
after(async () => {
  await stopServers(servers);
  servers = [];
  await Promise.all([anvil?.close(), engine?.close()]);
  await db?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const topUp = (base: string, header: string) =>
  fetch(`${base}/x402/top-up`, { method: 'POST', headers: { 'PAYMENT-SIGNATURE': header } }).then(async (r) => ({ status: r.status, body: await r.json() }));

async function required(base: string, usd: number) {
  const r = await fetch(`${base}/x402/top-up?amount=${usd}`, { method: 'POST' });
  return JSON.parse(Buffer.from(r.headers.get('payment-required')!, 'base64').toString());
}

test('one payment sent to two instances at once, then again to each: settled once, credited once', async () => {
  const account = evmWallet();
  await anvil.mint(account.address, 30_000_000n);
  const header = await signPayment(evmPayer(account), await required(servers[0].base, 10));
  const concurrent = await Promise.all([
    topUp(servers[0].base, header),
    topUp(servers[1].base, header),
    topUp(servers[0].base, header),
    topUp(servers[1].base, header),
  ]);
  assert.deepEqual(concurrent.map((r) => r.status).sort(), [200, 409, 409, 409], JSON.stringify(concurrent.map((r) => r.body)));
  for (const s of servers) assert.equal((await topUp(s.base, header)).body.code, 'PAYMENT_ALREADY_CREDITED');
  assert.equal(await anvil.usdcBalance(account.address), 20_000_000n);
  assert.equal(await anvil.usdcBalance(BASE_PAY_TO), 10_000_000n);

  // Both instances see the one credit; each sign-in header is good on one instance only.
  const header1 = await signInHeader(servers[1], account);
  const balance = (base: string, siwx: string) => fetch(`${base}/x402/balance/${account.address}`, { headers: { 'SIGN-IN-WITH-X': siwx } });
  const [a, b] = await Promise.all([balance(servers[0].base, header1), balance(servers[1].base, header1)]);
  assert.deepEqual([a.status, b.status].sort(), [200, 401]);
  const ok = a.status === 200 ? a : b;
  assert.equal((await ok.json()).data.balanceUsd, 10);
  // The statement, on PostgreSQL: the one top-up, with its transaction.
  const statement = await fetch(`${servers[0].base}/x402/transactions/${account.address}`, {
    headers: { 'SIGN-IN-WITH-X': await signInHeader(servers[0], account) },
  });
  assert.equal(statement.status, 200);
  const { data } = await statement.json();
  assert.deepEqual(
    data.transactions.map((t: any) => [t.type, t.amount, t.balanceAfter, t.network]),
    [['TOP_UP', 10, 10, 'eip155:8453']],
  );
  assert.match(data.transactions[0].transaction, /^0x[0-9a-f]{64}$/);
});

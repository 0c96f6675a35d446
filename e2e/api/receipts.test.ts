// Signed receipts (issue 34): a billed answer's receipt names its request and answer by their hashes, its model,
// units, amount and the balance after, and verifies offline with only the published key set; a changed receipt does
// not; `lagoon receipt verify` says so; keys rotate and old receipts still verify; a receipt is its account's only.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { accountKeys } from '../../lib/auth/keys.ts';
import { receiptKeys, receiptProblem } from '../../lib/billing/receipts.ts';
import { type Harness, startHarness } from '../support/harness.ts';

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h?.close());

async function chat(key: string, body: Record<string, unknown>) {
  const text = JSON.stringify(body);
  const res = await fetch(`${h.base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: text,
  });
  return { res, sent: text, got: await res.text(), requestId: res.headers.get('cf-ray') as string };
}

const receipt = (key: string, id: string) => fetch(`${h.base}/billing/receipts/${id}`, { headers: { authorization: `Bearer ${key}` } });
const publishedKeys = async () =>
  (await fetch(`${h.origin}/.well-known/lagoon-receipt-keys`)).json() as Promise<{ keys: { kid: string; retired_at: string | null }[] }>;

test('a completion’s receipt: its hashes, amount and balance, verified offline; a changed one fails', async () => {
  const { key, accountId } = await h.newAccount({ usd: 1 });
  const c = await chat(key, { model: 'scripted-model', messages: [{ role: 'user', content: '[[tokens:7]]' }] });
  assert.equal(c.res.status, 200);
  await h.svc.ledger.drain();
  const r = await receipt(key, c.requestId);
  assert.equal(r.status, 200);
  const doc = await r.json();
  const row = await h.svc.store.get<{ usd: number | string }>('SELECT usd FROM usage WHERE request_id = $1', [c.requestId]);
  const balance = await h.svc.ledger.balances(accountId);
  assert.equal(doc.receipt.request_id, c.requestId);
  assert.equal(doc.receipt.model, 'scripted-model');
  assert.equal(doc.receipt.request_sha256, sha256(c.sent), 'the body as sent');
  assert.equal(doc.receipt.response_sha256, sha256(c.got), 'the answer as received');
  assert.equal(doc.receipt.amount.usd, (Number(row?.usd) / 1e6).toFixed(6));
  assert.equal(doc.receipt.balance_after.usd, (balance.usd / 1e6).toFixed(6));
  assert.equal(doc.receipt.ledger_entry, `usage:${c.requestId}`);
  assert.ok(doc.receipt.unit_prices, 'the model’s prices');

  const keys = await publishedKeys();
  assert.equal(receiptProblem(doc, keys), null);
  const tampered = structuredClone(doc);
  tampered.receipt.amount.usd = '0.000000';
  assert.match(receiptProblem(tampered, keys) ?? '', /does not match/);

  // The CLI, on files, with no server and no store.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'receipt-'));
  fs.writeFileSync(path.join(dir, 'r.json'), JSON.stringify(doc));
  fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify(tampered));
  fs.writeFileSync(path.join(dir, 'keys.json'), JSON.stringify(keys));
  const run = promisify(execFile);
  const ok = await run(process.execPath, ['scripts/lagoon.ts', 'receipt', 'verify', path.join(dir, 'r.json'), '--keys', path.join(dir, 'keys.json')]);
  assert.match(ok.stdout, /^valid: request /);
  await assert.rejects(
    run(process.execPath, ['scripts/lagoon.ts', 'receipt', 'verify', path.join(dir, 'bad.json'), '--keys', path.join(dir, 'keys.json')]),
    (e: { code: number; stdout: string }) => e.code === 1 && /^invalid: /.test(e.stdout),
  );
});

test('a stream’s receipt hashes the SSE text the client read', async () => {
  const { key } = await h.newAccount({ usd: 1 });
  const c = await chat(key, { model: 'scripted-model', stream: true, messages: [{ role: 'user', content: '[[tokens:12]]' }] });
  assert.equal(c.res.status, 200);
  await h.svc.ledger.drain();
  const doc = await (await receipt(key, c.requestId)).json();
  assert.equal(doc.receipt.response_sha256, sha256(c.got));
  assert.equal(receiptProblem(doc, await publishedKeys()), null);
});

test('a receipt is the account’s: another account hears 404; an INFERENCE key sees its own requests only', async () => {
  const mine = await h.newAccount({ usd: 1 });
  const c = await chat(mine.key, { model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }] });
  await h.svc.ledger.drain();
  const other = await h.newAccount({ usd: 1 });
  assert.equal((await receipt(other.key, c.requestId)).status, 404);
  const sibling = await accountKeys(h.svc.store, mine.accountId).create({ type: 'INFERENCE' });
  assert.equal((await receipt(sibling.secret, c.requestId)).status, 404);
  const admin = await accountKeys(h.svc.store, mine.accountId).create({ type: 'ADMIN' });
  assert.equal((await receipt(admin.secret, c.requestId)).status, 200);
  assert.equal((await receipt(mine.key, 'no-such-request')).status, 404);
});

test('keys rotate: the next period signs with a new key, and the old one stays published', async () => {
  const rotateMs = h.svc.config.receiptKeyRotateMs;
  const now = await receiptKeys(h.svc.store, rotateMs);
  const next = await receiptKeys(h.svc.store, rotateMs, Date.now() + rotateMs);
  assert.notEqual(next.signer.kid, now.signer.kid);
  const listed = next.keys.map((k) => k.kid);
  assert.ok(listed.includes(now.signer.kid) && listed.includes(next.signer.kid));
  assert.ok(next.keys.find((k) => k.kid === now.signer.kid)?.retired_at, 'the old key is marked retired');
});

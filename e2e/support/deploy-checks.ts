// The checks a multi-instance deployment must pass, whatever started it (two containers on the host's services, or
// the compose file): both instances healthy and ready, a chat through each, one rate limit and one ledger across both.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { scriptedModel } from './harness.ts';

/** Requests per window of the model's tier: 3N requests over both instances admit exactly N. */
export const N = 6;

/** Writes the catalogue (one scripted model at `engineUrl`) and the rate limits into `dir`, readable by the container user. */
export function writeDeployConfig(dir: string, engineUrl: string): void {
  // Output-only pricing: [[tokens:100]] with max_tokens 100 costs exactly 100 micro-USD.
  const model = scriptedModel('shared', engineUrl, { tier: 'L', pricing: { input_usd: 0, output_usd: 1, input_diem: 0, output_diem: 1 } });
  fs.writeFileSync(path.join(dir, 'models.json'), JSON.stringify({ models: [model] }));
  fs.writeFileSync(path.join(dir, 'limits.json'), JSON.stringify({ windowSeconds: 30, text: { default: { L: { rpm: N, tpm: 1_000_000 } } } }));
  fs.chmodSync(dir, 0o755);
  for (const f of ['models.json', 'limits.json']) fs.chmodSync(path.join(dir, f), 0o644);
}

export interface Deployment {
  /** Each instance's origin, e.g. http://127.0.0.1:8080. */
  origins: string[];
  /** The operator CLI inside an instance (scripts/lagoon.ts): everything it printed. */
  cli(...args: string[]): Promise<string>;
  /** Whether `lagoon ledger reconcile` finds every balance equal to its ledger. */
  reconciles(): Promise<boolean>;
}

export const chat = (origin: string, key: string, content = '[[tokens:100]] [[delay:20]]') =>
  fetch(`${origin}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'shared', max_tokens: 100, messages: [{ role: 'user', content }] }),
  }).then(async (r) => ({ status: r.status, body: await r.text() }));

const lastLine = (s: string) => s.trim().split('\n').at(-1) ?? '';

async function account(d: Deployment, name: string, usd: string, keys = 1): Promise<{ id: string; keys: string[] }> {
  const id = lastLine(await d.cli('account', 'create', '--name', name));
  const made: string[] = [];
  for (let i = 0; i < keys; i++) made.push(lastLine(await d.cli('key', 'create', '--account', id, '--type', 'INFERENCE')));
  await d.cli('credit', 'grant', '--account', id, '--usd', usd);
  return { id, keys: made };
}

export async function checkHealth(d: Deployment): Promise<void> {
  for (const origin of d.origins) {
    for (const p of ['/healthz', '/readyz']) {
      const r = await fetch(origin + p);
      assert.equal(r.status, 200, `${origin}${p}: ${await r.text()}`);
    }
  }
}

export async function checkChat(d: Deployment): Promise<void> {
  const { keys } = await account(d, 'chat', '10');
  for (const origin of d.origins) {
    const r = await chat(origin, keys[0], 'Hello from a container');
    assert.equal(r.status, 200, r.body);
    const body = JSON.parse(r.body);
    assert.equal(body.object, 'chat.completion');
    assert.ok(body.choices[0].message.content.length > 0);
  }
}

export async function checkSharedRateLimit(d: Deployment): Promise<void> {
  const { keys } = await account(d, 'rate', '10');
  const results = await Promise.all(Array.from({ length: 3 * N }, (_, i) => chat(d.origins[i % d.origins.length], keys[0])));
  const statuses = results.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, N, statuses.join(','));
  assert.equal(statuses.filter((s) => s === 429).length, 2 * N, statuses.join(','));
}

export async function checkOneLedger(d: Deployment): Promise<void> {
  // Credit for exactly N answers; two keys so the per-key rate limit (N) does not decide the outcome.
  const { id, keys } = await account(d, 'ledger', String((N * 100) / 1e6), 2);
  const results = await Promise.all(Array.from({ length: 3 * N }, (_, i) => chat(d.origins[i % d.origins.length], keys[Math.floor(i / 2) % 2])));
  const statuses = results.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, N, statuses.join(','));
  assert.ok(
    statuses.every((s) => s === 200 || s === 402 || s === 429),
    statuses.join(','),
  );
  // Settlements commit within moments of the answers; then the balance is exactly spent.
  let line = '';
  for (let i = 0; i < 40 && !/\tusd 0\.000000\t/.test(line); i++) {
    if (i) await new Promise((r) => setTimeout(r, 250));
    line = (await d.cli('account', 'list')).split('\n').find((l) => l.startsWith(`${id}\t`)) ?? '';
  }
  assert.match(line, /\tusd 0\.000000\t/);
  assert.ok(await d.reconciles(), 'every balance is its ledger entries less its charges');
}

// The billing page's routes on a real service, SQLite and PostgreSQL: the summary matches the ledger (balances, what
// is held, spend windows, the chart series), the statement lists every ledger entry (charges by the same rows as
// GET /api/v1/billing/usage-history, grants, wallet top-ups with their explorer link), filters and pages, the CSV and
// JSON exports carry the API's rows (formula-safe), one account never sees another's, and bad input is a 400.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { get } from '../../e2e/support/harness.ts';
import { grantUsd } from './ledger.ts';
import { toMicros } from './money.ts';
import { ensureWalletUser } from '../users/wallet-users.ts';
import { BASE_MAINNET } from '../wallet/networks.ts';
import { ensureWallet } from '../wallet/wallets.ts';
import { createSession, SESSION_COOKIE } from '../users/sessions.ts';
import type { BillingSummary, StatementPage } from '../wire.ts';
import { apiChat, BACKENDS, type Dash, type DashUser, startDash } from '../../e2e/support/app-dash.ts';

/** A CSV document's records (no quoted newlines in these files), header first. */
const records = (csv: string) =>
  csv
    .split('\r\n')
    .filter(Boolean)
    .map((line) => line.split(','));

for (const backend of BACKENDS)
  describe(`billing routes (${backend})`, () => {
    let d: Dash;
    let alice: DashUser;
    let bob: DashUser;
    let aliceKey: { id: string; secret: string };
    let aliceAdmin: { id: string; secret: string };

    before(async () => {
      d = await startDash(backend);
      alice = await d.newUser(10);
      bob = await d.newUser(3);
      aliceKey = await d.newKey(alice, 'INFERENCE', 'reef app');
      aliceAdmin = await d.newKey(alice, 'ADMIN', 'billing export');
      await apiChat(d.h, aliceKey.secret, 'scripted-model', 'One.');
      await apiChat(d.h, aliceKey.secret, 'plain-model', 'Two.');
      await apiChat(d.h, aliceKey.secret, 'scripted-model', 'Three.');
      await grantUsd(d.h.svc.store, alice.user.accountId, toMicros(2), '=HYPERLINK("http://x.test","click")');
      await apiChat(d.h, (await d.newKey(bob)).secret, 'scripted-model', 'Bob.');
      await d.h.svc.ledger.drain();
    });
    after(() => d?.close());

    const summaryOf = async (u: DashUser) => {
      const r = await d.call(d.routes.billingSummary, '/billing/summary', { browser: u.browser });
      assert.equal(r.status, 200, r.text);
      return r.json as BillingSummary;
    };
    const statementOf = async (u: DashUser, query = '') => {
      const r = await d.call(d.routes.billingStatement, `/billing/statement${query}`, { browser: u.browser });
      assert.equal(r.status, 200, r.text);
      return r.json as StatementPage;
    };

    test('the summary: balances as the ledger has them, spend windows and chart series that add up', async () => {
      const s = await summaryOf(alice);
      const rows = await d.h.svc.store.all<{ usd: number; model_id: string; prompt_tokens: number; completion_tokens: number }>(
        'SELECT usd, model_id, prompt_tokens, completion_tokens FROM usage WHERE account_id = $1',
        [alice.user.accountId],
      );
      assert.equal(rows.length, 3);
      const spent = rows.reduce((a, r) => a + Number(r.usd), 0) / 1e6;
      const b = await d.h.svc.ledger.balances(alice.user.accountId);
      assert.equal(s.balances.usd, (b.usd - b.usdHeld) / 1e6);
      assert.equal(s.balances.usdHeld, 0);
      assert.ok(Math.abs(s.balances.usd - (12 - spent)) < 1e-9, `12 USD granted minus ${spent} spent: ${s.balances.usd}`);
      assert.ok(s.balances.diemResetsAt > Date.now());
      for (const w of [s.spend.today, s.spend.last7Days, s.spend.last30Days]) {
        assert.equal(w.requests, 3);
        assert.ok(Math.abs(w.usd - spent) < 1e-9);
      }
      assert.ok(Math.abs(s.projection.usdPerDay - spent / 7) < 1e-6);
      assert.ok(s.projection.runsOutAt !== null && s.projection.runsOutAt > Date.now());

      assert.equal(s.chart.days.length, 30);
      assert.deepEqual(
        s.chart.models,
        ['scripted-model', 'plain-model'].sort((a, b) => spentOn(rows, b) - spentOn(rows, a) || (a < b ? -1 : 1)),
      );
      const today = s.chart.days.at(-1)!;
      assert.equal(today.date, new Date().toISOString().slice(0, 10));
      assert.equal(today.requests, 3);
      assert.equal(
        today.tokens,
        rows.reduce((a, r) => a + Number(r.prompt_tokens) + Number(r.completion_tokens), 0),
      );
      assert.ok(Math.abs(Object.values(today.spend).reduce((a, v) => a + v, 0) - today.total) < 1e-9);
      assert.ok(Math.abs(today.spend['scripted-model'] - spentOn(rows, 'scripted-model')) < 1e-9);
      assert.equal(s.chart.hours.length, 24);
      assert.equal(
        s.chart.hours.reduce((a, h) => a + h.requests, 0),
        3,
      );
      assert.deepEqual(new Set(s.filters.models), new Set(['scripted-model', 'plain-model']));
      assert.ok(s.filters.keys.some((k) => k.id === aliceKey.id && k.description === 'reef app'));
      assert.equal(s.topUp, 'operator');
      assert.equal(s.isOperator, true, 'the first user is the operator');
      assert.equal((await summaryOf(bob)).isOperator, false);
    });

    test('the statement: charges as the API rows, the grant, newest first; filters and pages', async () => {
      const all = await statementOf(alice);
      assert.equal(all.total, 5, '3 charges and 2 grants (the starting credit and the note one)');
      assert.deepEqual(
        all.entries.map((e) => e.at),
        [...all.entries.map((e) => e.at)].sort((a, b) => b - a),
      );
      const api = await get(d.h, '/billing/usage-history', aliceAdmin.secret);
      assert.equal(api.status, 200, api.text);
      const charges = all.entries.filter((e) => e.kind === 'inference');
      assert.deepEqual(
        charges.map((e) => e.usage),
        api.json.data,
        'the charges are the API’s usage-history rows',
      );
      assert.ok(charges.every((e) => e.keyDescription === 'reef app'));
      const grants = all.entries.filter((e) => e.kind === 'grant');
      assert.equal(grants.length, 2);
      assert.ok(grants.some((g) => g.credit?.usd === 2 && g.credit.note?.startsWith('=HYPERLINK')));

      assert.equal((await statementOf(alice, '?kind=grant')).total, 2);
      assert.equal((await statementOf(alice, '?kind=inference')).total, 3);
      assert.equal((await statementOf(alice, '?kind=search')).total, 0);
      assert.equal((await statementOf(alice, '?kind=topup')).total, 0);
      const plain = await statementOf(alice, '?modelId=plain-model');
      assert.equal(plain.total, 1, 'a model filter keeps that model’s charges only (credits have no model)');
      assert.equal(plain.entries[0].usage?.modelId, 'plain-model');
      assert.equal((await statementOf(alice, `?keyId=${aliceKey.id}`)).total, 3);
      const future = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      assert.equal((await statementOf(alice, `?from=${future}`)).total, 0);
      assert.equal((await statementOf(alice, `?to=${future}`)).total, 5);

      const p1 = await statementOf(alice, '?limit=2&page=1');
      const p3 = await statementOf(alice, '?limit=2&page=3');
      assert.equal(p1.totalPages, 3);
      assert.equal(p1.entries.length, 2);
      assert.equal(p3.entries.length, 1);
      const paged = [...p1.entries, ...(await statementOf(alice, '?limit=2&page=2')).entries, ...p3.entries];
      assert.deepEqual(
        paged.map((e) => e.id),
        all.entries.map((e) => e.id),
        'pages neither overlap nor skip',
      );
      assert.equal((await statementOf(alice, '?page=9')).entries.length, 0);
    });

    test('the CSV export: the API’s CSV rows for the charges (same columns first), credits after, formula-safe', async () => {
      const r = await d.call(d.routes.billingExport, '/billing/statement/export?format=csv', { browser: alice.browser });
      assert.equal(r.status, 200, r.text);
      assert.match(r.headers.get('content-type') ?? '', /^text\/csv/);
      assert.match(r.headers.get('content-disposition') ?? '', /^attachment; filename="statement-\d{4}-\d{2}-\d{2}\.csv"$/);
      const api = await get(d.h, '/billing/usage-history', aliceAdmin.secret, { accept: 'text/csv' });
      assert.equal(api.status, 200);
      const apiRecords = records(api.text);
      const ours = records(r.text);
      const width = apiRecords[0].length;
      assert.deepEqual(ours[0].slice(0, width), apiRecords[0], 'the API’s columns, in its order');
      assert.deepEqual(ours[0].slice(width), ['kind', 'entryId', 'creditUsd', 'network', 'transaction', 'payer', 'note']);
      const kindAt = width;
      const charges = ours.slice(1).filter((rec) => rec[kindAt] === 'inference');
      assert.deepEqual(
        charges.map((rec) => rec.slice(0, width)),
        apiRecords.slice(1),
        'every charge is the API’s record',
      );
      assert.ok(r.text.includes(`"'=HYPERLINK(""http://x.test"",""click"")"`), 'a note starting with = is neutralised');
      assert.equal(ours.length - 1, 5);

      const j = await d.call(d.routes.billingExport, '/billing/statement/export?format=json&kind=inference', { browser: alice.browser });
      assert.equal(j.status, 200);
      const apiJson = await get(d.h, '/billing/usage-history', aliceAdmin.secret);
      assert.deepEqual(
        j.json.entries.map((e: { usage: unknown }) => e.usage),
        apiJson.json.data,
      );
    });

    test('one account never sees another’s: its statement, its exports, and a filter on a foreign key (404)', async () => {
      const s = await statementOf(bob);
      assert.ok(s.entries.every((e) => e.id !== aliceKey.id && e.usage?.apiKeyId !== aliceKey.id));
      assert.equal(s.entries.filter((e) => e.kind === 'inference').length, 1);
      const foreign = await d.call(d.routes.billingStatement, `/billing/statement?keyId=${aliceKey.id}`, { browser: bob.browser });
      assert.equal(foreign.status, 404, foreign.text);
      const foreignExport = await d.call(d.routes.billingExport, `/billing/statement/export?keyId=${aliceKey.id}`, { browser: bob.browser });
      assert.equal(foreignExport.status, 404);
      const csv = await d.call(d.routes.billingExport, '/billing/statement/export', { browser: bob.browser });
      assert.ok(!csv.text.includes(alice.user.accountId) && !csv.text.includes(aliceKey.id));
      assert.equal((await summaryOf(bob)).spend.today.requests, 1);
    });

    test('a wallet account’s top-up is on its statement, with the explorer link of its network', async () => {
      const wallet = await ensureWallet(d.h.svc.store, 'eip155', `0x${'ab'.repeat(20)}`);
      const wu = await ensureWalletUser(d.h.svc.store, wallet);
      const s = await createSession(d.h.svc.store, wu.id);
      const browser = { ip: '192.0.2.30', cookie: `${SESSION_COOKIE}=${s.token}`, csrf: s.csrfToken };
      const tx = `0x${'1f'.repeat(32)}`;
      // The row a settled top-up leaves (lib/wallet/topup.ts credits it in the same transaction; its flow has its own tests).
      await d.h.svc.store.run(
        `INSERT INTO x402_topups (id, payment_key, network, asset, payer, amount, status, claim_id, wallet_id, tx_hash, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'settled', $7, $8, $9, $10, $10)`,
        ['topup-1', 'pk-1', BASE_MAINNET.network, BASE_MAINNET.usdc, wallet.address, 7_000_000, 'claim-1', wallet.id, tx, Date.now()],
      );
      const r = await d.call(d.routes.billingStatement, '/billing/statement?kind=topup', { browser });
      assert.equal(r.status, 200, r.text);
      const [entry] = (r.json as StatementPage).entries;
      assert.equal(entry.credit?.usd, 7);
      assert.equal(entry.credit?.networkName, 'Base');
      assert.equal(entry.credit?.explorerUrl, `https://basescan.org/tx/${tx}`);
      const sum = await d.call(d.routes.billingSummary, '/billing/summary', { browser });
      // This server takes no USDC on Base (no x402 rail configured), so the wallet is not offered a top-up form.
      assert.equal((sum.json as BillingSummary).topUp, 'operator');
      assert.equal((await statementOf(alice, '?kind=topup')).total, 0, 'another account’s top-up is not on alice’s statement');
    });

    test('bad input is a 400 naming the parameter; no session is a 401', async () => {
      for (const q of [
        '?kind=payout',
        '?limit=0',
        '?limit=201',
        '?page=x',
        '?from=yesterday',
        '?from=2026-01-02&to=2026-01-01',
        '?surprise=1',
        '?to=2026-01-01T00:00:00',
      ]) {
        const r = await d.call(d.routes.billingStatement, `/billing/statement${q}`, { browser: alice.browser });
        assert.equal(r.status, 400, `${q}: ${r.text}`);
        assert.equal(r.json.code, 'INVALID_REQUEST');
      }
      const fmt = await d.call(d.routes.billingExport, '/billing/statement/export?format=xml', { browser: alice.browser });
      assert.equal(fmt.status, 400);
      for (const [h, p] of [
        [d.routes.billingSummary, '/billing/summary'],
        [d.routes.billingStatement, '/billing/statement'],
        [d.routes.billingExport, '/billing/statement/export'],
      ] as const) {
        const r = await d.call(h, p);
        assert.equal(r.status, 401);
      }
    });
  });

function spentOn(rows: { usd: number; model_id: string }[], model: string): number {
  return rows.filter((r) => r.model_id === model).reduce((a, r) => a + Number(r.usd), 0) / 1e6;
}

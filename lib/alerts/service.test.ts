// Alerts on both stores, with real counterparts on loopback (an SMTP server, a webhook receiver that checks every
// signature): spending through the ledger crosses a low-balance threshold once, evaluated after the settlement
// commits; a top-up re-arms it. A key's budget alerts at 50, 80 and 100 % once each. A failing endpoint is retried
// with backoff until it answers, and given up after the last attempt; what was queued survives a restart. On
// PostgreSQL two instances (two pools on one database) send each delivery once and fire a crossing once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase } from '../../e2e/support/pg.ts';
import { startSmtp, type TestSmtp } from '../../e2e/support/smtp.ts';
import { BACKENDS, freshStore } from '../../e2e/support/stores.ts';
import { startWebhookReceiver, verifyHook, type WebhookReceiver } from '../../e2e/support/webhooks.ts';
import { smtpMailer } from '../account/mailer.ts';
import { createAccount } from '../accounts/accounts.ts';
import { accountKeys } from '../auth/keys.ts';
import { grantUsd } from '../billing/ledger.ts';
import { Ledger } from '../billing/ledger-service.ts';
import { toMicros } from '../billing/money.ts';
import type { AlertsConfig } from '../config.ts';
import { openStore } from '../db/open.ts';
import type { Store } from '../db/store.ts';
import { AlertService, type AlertServiceOptions } from './service.ts';

const CONFIG: AlertsConfig = { sweepMs: 3_600_000, pollMs: 50, retryBaseMs: 100, maxAttempts: 4, timeoutMs: 400 };

async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function alertsOn(store: Store, over: Partial<AlertServiceOptions> = {}): AlertService {
  return new AlertService({ store, config: CONFIG, mailer: undefined, secrets: undefined, fetchAllowHosts: ['127.0.0.1'], ...over });
}

/** Spends `usd` through the ledger as a request would: reserve, settle, commit. */
async function spend(ledger: Ledger, accountId: string, usd: number, keyId: string | null = null) {
  const micros = toMicros(usd);
  const { hold } = await ledger.reserve({ accountId, keyId, estimate: { usd: micros, diem: micros } });
  await ledger.settle(hold, { usd: micros, diem: micros }, { modelId: 'm', endpoint: 'chat', promptTokens: 1, completionTokens: 1, cachedTokens: 0 }).committed;
}

for (const backend of BACKENDS) {
  describe(`alerts on ${backend}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    let hooks: WebhookReceiver;
    let smtp: TestSmtp;
    before(async () => {
      ({ store, dispose } = await freshStore(backend));
      [hooks, smtp] = await Promise.all([startWebhookReceiver(), startSmtp()]);
    });
    after(async () => {
      await Promise.all([hooks?.close(), smtp?.close()]);
      await dispose?.();
    });

    test('a low balance alerts once per crossing, after the settlement, by mail and signed webhook; a top-up re-arms it', async () => {
      hooks.hooks.length = 0;
      const mailer = smtpMailer({ smtpUrl: smtp.url, from: 'Lagoon <alerts@example.test>', resetTtlSeconds: 60, perEmailPerHour: 9, perIpPerHour: 9 });
      const alerts = alertsOn(store, { mailer });
      const ledger = new Ledger(store, { soleWriter: backend === 'sqlite', instanceId: backend === 'postgres' ? 'test-instance' : undefined });
      ledger.onSettled((id) => alerts.nudge(id));
      alerts.start();
      try {
        const account = await createAccount(store, 'alerts');
        await grantUsd(store, account.id, toMicros(1));
        const s = await alerts.alerts.save(account.id, {
          email: 'owner@example.test',
          webhookUrl: hooks.url,
          lowUsd: toMicros(0.5),
          lowDiem: null,
          keyBudgets: true,
        });
        assert.deepEqual(await alerts.evaluate(account.id), [], 'above the threshold: nothing');
        await spend(ledger, account.id, 0.3);
        await spend(ledger, account.id, 0.3); // 0.40 left: below 0.50
        await until('the webhook', () => hooks.hooks.length === 1);
        const hook = hooks.hooks[0];
        assert.ok(verifyHook(s.webhookSecret, hook), 'the signature verifies');
        assert.equal(hook.json.type, 'balance.low');
        assert.equal(hook.id, hook.json.id);
        assert.deepEqual(hook.json.data, { currency: 'USD', balance: '0.400000', threshold: '0.500000' });
        const mail = await smtp.next('owner@example.test');
        assert.match(mail.subject, /USD balance \(0\.400000\) is below 0\.500000/);
        // More spending below the threshold: no second alert.
        await spend(ledger, account.id, 0.1);
        await new Promise((r) => setTimeout(r, 400));
        assert.deepEqual(await alerts.evaluate(account.id), []);
        assert.equal(hooks.hooks.length, 1);
        // Topped up above it: re-armed quietly; the next crossing alerts again.
        await grantUsd(store, account.id, toMicros(1)); // 1.30
        assert.deepEqual(await alerts.evaluate(account.id), []);
        await spend(ledger, account.id, 0.9); // 0.40
        await until('the second webhook', () => hooks.hooks.length === 2);
        assert.notEqual(hooks.hooks[1].id, hook.id);
        await smtp.next('owner@example.test');
        await until('both logged delivered', async () => (await alerts.alerts.log(account.id, 1, 10)).items.every((r) => r.status === 'delivered'));
        const log = await alerts.alerts.log(account.id, 1, 10);
        assert.equal(log.total, 4);
        assert.deepEqual(log.items.map((r) => r.channel).sort(), ['email', 'email', 'webhook', 'webhook']);
        assert.ok(log.items.every((r) => r.attempts === 1));
        assert.deepEqual(
          log.items.filter((r) => r.channel === 'webhook').map((r) => r.response_code),
          [200, 200],
        );
      } finally {
        await ledger.drain();
        await alerts.stop();
        mailer.close();
      }
    });

    test("a key's budget alerts at 50, 80 and 100 % once each; a new period re-arms it", async () => {
      hooks.hooks.length = 0;
      const alerts = alertsOn(store);
      const ledger = new Ledger(store, { soleWriter: backend === 'sqlite', instanceId: backend === 'postgres' ? 'test-instance' : undefined });
      const account = await createAccount(store, 'budgets');
      await grantUsd(store, account.id, toMicros(10));
      const { key } = await accountKeys(store, account.id).create({ type: 'INFERENCE', description: 'ci runner', limitUsd: toMicros(1), limitPeriod: 'MONTH' });
      await alerts.alerts.save(account.id, { email: null, webhookUrl: hooks.url, lowUsd: null, lowDiem: null, keyBudgets: true });
      const fired: number[] = [];
      for (const usd of [0.2, 0.35, 0.1, 0.2, 0.05, 0.1]) {
        await spend(ledger, account.id, usd, key.id);
        for (const e of await alerts.evaluate(account.id)) if (e.type === 'budget.crossed') fired.push(e.data.percent);
      }
      assert.deepEqual(fired, [50, 80, 100]);
      // Until all three arrived: a pass may find a row another pass holds (a loaded machine delivered 2 of 3 in one),
      // and one arriving late would land in the next test's receiver.
      await until('the three webhooks', async () => {
        await alerts.deliverDue();
        return hooks.hooks.length >= 3;
      });
      assert.deepEqual(
        hooks.hooks.map((h) => [h.json.data.percent, h.json.data.nearingCap, h.json.data.keyName]),
        [
          [50, false, 'ci runner'],
          [80, true, 'ci runner'],
          [100, true, 'ci runner'],
        ],
      );
      // Next month the spend starts again from nothing: the budget is re-armed, without an alert.
      const nextMonth = new Date();
      nextMonth.setUTCMonth(nextMonth.getUTCMonth() + 1, 1);
      assert.deepEqual(await alerts.evaluate(account.id, nextMonth.getTime()), []);
      const state = await store.get<{ level: number; period: string }>('SELECT level, period FROM alert_state WHERE account_id = $1 AND subject = $2', [
        account.id,
        `budget:${key.id}:USD`,
      ]);
      assert.deepEqual({ level: Number(state?.level), period: state?.period }, { level: 0, period: nextMonth.toISOString().slice(0, 7) });
      // (Back in this month, with next month's state stored, it would fire again: leave the later tests' sweeps alone.)
      await store.run('DELETE FROM alert_settings WHERE account_id = $1', [account.id]);
      await ledger.drain();
      await alerts.stop();
    });

    test('a failing endpoint is retried with backoff (a 500, a timeout, then 200); the attempts are bounded', async () => {
      hooks.hooks.length = 0;
      hooks.respond = (n) => (n === 0 ? 500 : n === 1 ? 'hang' : 200);
      const alerts = alertsOn(store, { random: () => 1 });
      alerts.start();
      try {
        const account = await createAccount(store, 'retries');
        await alerts.alerts.save(account.id, { email: null, webhookUrl: hooks.url, lowUsd: null, lowDiem: null, keyBudgets: false });
        const sent = await alerts.sendTest(account.id);
        await until('delivered on the third attempt', async () => (await alerts.alerts.log(account.id, 1, 1)).items[0]?.status === 'delivered');
        const [row] = (await alerts.alerts.log(account.id, 1, 1)).items;
        assert.equal(row.attempts, 3, JSON.stringify({ row, hooks: hooks.hooks.map((h) => [h.answered, h.at]) }));
        assert.equal(row.response_code, 200);
        assert.deepEqual(
          hooks.hooks.filter((h) => h.id === sent!.id).map((h) => h.answered),
          [500, 0, 200],
        );
        assert.ok(
          hooks.hooks.every((h) => h.id === sent!.id && h.body === hooks.hooks[0].body),
          'the same event each time',
        );
        // Backoff: 100 ms after the first failure, 200 ms after the second (which itself took the 400 ms timeout).
        const gaps = [hooks.hooks[1].at - hooks.hooks[0].at, hooks.hooks[2].at - hooks.hooks[1].at];
        assert.ok(gaps[0] >= 95, `first retry after ${gaps[0]} ms`);
        // (The timeout runs from before the connection, so a little of it is spent before the request arrives.)
        assert.ok(gaps[1] >= 350 + 195, `second retry after ${gaps[1]} ms`);

        // An endpoint that always fails: given up after LAGOON_ALERT_ATTEMPTS, with its last answer logged.
        hooks.hooks.length = 0;
        hooks.respond = () => 503;
        await alerts.sendTest(account.id);
        await until('marked failed', async () => (await alerts.alerts.log(account.id, 1, 1)).items[0]?.status === 'failed');
        const [failed] = (await alerts.alerts.log(account.id, 1, 1)).items;
        assert.equal(failed.attempts, CONFIG.maxAttempts);
        assert.equal(failed.response_code, 503);
        assert.match(failed.last_error ?? '', /503/);
        await new Promise((r) => setTimeout(r, 300));
        assert.equal(hooks.hooks.length, CONFIG.maxAttempts);
      } finally {
        hooks.respond = () => 200;
        await alerts.stop();
      }
    });

    test('a delivery queued before a restart is sent by the next start', async () => {
      hooks.hooks.length = 0;
      const first = alertsOn(store);
      const account = await createAccount(store, 'restart');
      await first.alerts.save(account.id, { email: null, webhookUrl: hooks.url, lowUsd: null, lowDiem: null, keyBudgets: false });
      const sent = await first.sendTest(account.id); // queued; this instance stops before sending it
      await first.stop();
      const next = alertsOn(store);
      next.start();
      try {
        await until('sent after the restart', () => hooks.hooks.some((h) => h.id === sent!.id));
        assert.equal(hooks.hooks.filter((h) => h.id === sent!.id).length, 1);
      } finally {
        await next.stop();
      }
    });
  });
}

describe('alerts on two instances sharing PostgreSQL', () => {
  let db: { url: string; drop(): Promise<void> };
  let stores: Store[] = [];
  let hooks: WebhookReceiver;
  before(async () => {
    db = await createTestDatabase();
    stores = [await openStore({ databaseUrl: db.url, dataDir: '/nonexistent' }), await openStore({ databaseUrl: db.url, dataDir: '/nonexistent' })];
    hooks = await startWebhookReceiver();
  });
  after(async () => {
    await hooks?.close();
    for (const s of stores) await s.close();
    await db?.drop();
  });

  test('each delivery is sent once, and a crossing evaluated on both at once fires once', async () => {
    const [a, b] = stores.map((s) => alertsOn(s));
    const account = await createAccount(stores[0], 'two-instances');
    await grantUsd(stores[0], account.id, toMicros(1));
    await a.alerts.save(account.id, { email: null, webhookUrl: hooks.url, lowUsd: toMicros(5), lowDiem: null, keyBudgets: false });
    // Both evaluate the same crossing at once, ten times over: one event.
    const fired = (await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).evaluate(account.id)))).flat();
    assert.equal(fired.length, 1);
    await until('the crossing sent', () => hooks.hooks.length === 1);
    const ids = new Set([fired[0].id]);
    // Thirty events queued without waking a worker, then both instances' workers drain the outbox at once.
    const test = { type: 'alert.test' as const, data: { message: 'twice?' } };
    for (let i = 0; i < 30; i++) ids.add((await (i % 2 ? a : b).alerts.enqueue(account.id, test, [{ channel: 'webhook', target: hooks.url }])).id);
    await Promise.all([a.deliverDue(), b.deliverDue(), a.deliverDue(), b.deliverDue()]);
    await until('all sent', () => hooks.hooks.length >= 31);
    assert.equal(a.attempts + b.attempts, 31);
    assert.ok(a.attempts > 0 && b.attempts > 0, `both instances sent some: ${a.attempts}, ${b.attempts}`);
    assert.equal(hooks.hooks.length, 31);
    assert.deepEqual(new Set(hooks.hooks.map((h) => h.id)), ids);
    // A row is marked delivered once the receiver has answered, a moment after it counted the hook.
    const rows = () => stores[0].all<{ status: string; attempts: number }>('SELECT status, attempts FROM alert_deliveries WHERE account_id = $1', [account.id]);
    await until('all marked delivered', async () => (await rows()).every((r) => r.status === 'delivered'));
    assert.ok(
      (await rows()).every((r) => Number(r.attempts) === 1),
      JSON.stringify(await rows()),
    );
    await Promise.all([a.stop(), b.stop()]);
  });
});

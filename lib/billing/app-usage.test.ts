// The usage dashboard's routes on a real service, with usage made by real chats through the scripted engine: the
// numbers match the ledger's rows and the answers' own usage, one user never sees another's, API-key requests of the
// account count too, remote mode reports the user's chats, the rate-limit meter goes down after a chat (and reading
// it consumes nothing), and the key list carries metadata only, on SQLite and PostgreSQL. Every response is scanned
// for key material.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { post, type Harness, startHarness } from '../../e2e/support/harness.ts';
import { createTestDatabase } from '../../e2e/support/pg.ts';
import { accountKeys } from '../auth/keys.ts';
import { fromMicros } from './money.ts';
import { loadConfig } from '../config.ts';
import { userConversations } from '../conversations/conversations.ts';
import { chatRoutes } from '../chat/app-routes.ts';
import { call as chatCall, EventReader, testUser, type TestUser } from '../../e2e/support/app-chat.ts';
import type { AppDeps } from '../http/app-deps.ts';
import type { AppApiKey, AppMessage, RateLimitsReport, SendMessageResponse, UsageReport } from '../wire.ts';
import { keyRoutes } from '../keys/app-list.ts';
import { rateLimitRoutes } from '../limits/app-rate-limits.ts';
import { type Browser, caller } from '../../e2e/support/app-requests.ts';
import { usageRoutes } from './app-usage.ts';

const RPM = 40;
const TPM = 50_000;
const RPD = 900;

let h: Harness;
let call: ReturnType<typeof caller>;
const secrets: string[] = [];
let alice: TestUser;
let bob: TestUser;

function appFor(env: Record<string, string>) {
  const deps: AppDeps = { svc: h.svc, app: loadConfig(env).app };
  return { chat: chatRoutes(deps), ...usageRoutes(deps), ...rateLimitRoutes(deps), ...keyRoutes(deps) };
}
let local: ReturnType<typeof appFor>;

const browserOf = (u: TestUser): Browser => ({ ip: '192.0.2.10', cookie: u.cookie, csrf: u.csrf });

/** A chat turn as the browser makes it: send, then read the stream to its end; the stored answer. */
async function chatTurn(app: ReturnType<typeof appFor>, who: TestUser, content: string, modelId?: string): Promise<AppMessage> {
  const c = await userConversations(h.svc.store, who.user.id).create(modelId ? { modelId } : {});
  const res = await chatCall(app.chat.sendMessage, 'POST', `/conversations/${c.id}/messages`, who, { body: { parentId: null, content }, params: { id: c.id } });
  const sent = (await res.json()) as SendMessageResponse;
  assert.equal(res.status, 201, JSON.stringify(sent));
  const stream = await chatCall(app.chat.streamMessage, 'GET', `/messages/${sent.assistant.id}/stream`, who, { params: { id: sent.assistant.id } });
  const done = (await new EventReader(stream).rest()).at(-1);
  assert.equal(done?.type, 'done');
  const message = (done as { message: AppMessage }).message;
  assert.equal(message.status, 'complete', JSON.stringify(message));
  assert.ok(message.usage, 'the answer carries its usage');
  return message;
}

const usageOf = async (app: ReturnType<typeof appFor>, who: TestUser, query = '') => {
  const r = await call(app.usage, `/usage${query}`, { browser: browserOf(who) });
  assert.equal(r.status, 200, r.text);
  return r.json as UsageReport;
};
const limitsOf = async (who: TestUser) => {
  const r = await call(local.rateLimits, '/rate-limits', { browser: browserOf(who) });
  assert.equal(r.status, 200, r.text);
  return r.json as RateLimitsReport;
};
const sum = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) * 1e6) / 1e6;

let aliceAnswers: AppMessage[] = [];

// The SQL is the portable subset: the same checks run on SQLite and on PostgreSQL.
let drop: (() => Promise<void>) | undefined;

for (const backend of ['sqlite', 'postgres'] as const)
  describe(`usage dashboard routes (${backend})`, () => {
    before(async () => {
      let databaseUrl: string | undefined;
      if (backend === 'postgres') ({ url: databaseUrl, drop } = await createTestDatabase());
      h = await startHarness({ databaseUrl, limits: { text: { default: { XS: { rpm: RPM, tpm: TPM, rpd: RPD } } } } });
      call = caller(h.svc.store, () => secrets);
      local = appFor({});
      alice = await testUser(h.svc.store);
      bob = await testUser(h.svc.store);
      aliceAnswers = [
        await chatTurn(local, alice, 'Name a reef fish [[reply:The clownfish lives among anemones.]]'),
        await chatTurn(local, alice, 'And a shark? [[reply:The whale shark is the largest fish.]]'),
      ];
      await chatTurn(local, bob, 'Hello from Bob [[reply:Hi Bob.]]', 'plain-model');
      await h.svc.ledger.drain();
    });
    after(async () => {
      await local?.chat.close();
      await h?.close();
      await drop?.();
      drop = undefined;
    });

    describe('GET /api/app/usage', () => {
      test('totals, days, models and recent requests match the ledger rows and the answers of the two chats', async () => {
        const report = await usageOf(local, alice, '?days=7');
        const rows = await h.svc.store.all<{ prompt_tokens: number; completion_tokens: number; usd: number; diem: number }>(
          'SELECT prompt_tokens, completion_tokens, usd, diem FROM usage WHERE account_id = $1',
          [alice.user.accountId],
        );
        assert.equal(rows.length, 2);
        assert.equal(report.source, 'billing');
        assert.equal(report.days, 7);
        assert.deepEqual(report.totals, {
          requests: 2,
          promptTokens: sum(rows.map((r) => Number(r.prompt_tokens))),
          completionTokens: sum(rows.map((r) => Number(r.completion_tokens))),
          usd: sum(rows.map((r) => fromMicros(Number(r.usd)))),
          diem: sum(rows.map((r) => fromMicros(Number(r.diem)))),
        });
        // What the chat showed on each answer is what the dashboard adds up.
        assert.equal(report.totals.promptTokens, sum(aliceAnswers.map((m) => m.usage!.promptTokens)));
        assert.equal(report.totals.completionTokens, sum(aliceAnswers.map((m) => m.usage!.completionTokens)));
        assert.equal(report.totals.usd, sum(aliceAnswers.map((m) => m.usage!.costUsd)));
        assert.ok(report.totals.usd > 0 && report.totals.completionTokens > 0);

        assert.equal(report.byDay.length, 7);
        assert.equal(report.byDay.at(-1)!.date, new Date().toISOString().slice(0, 10));
        assert.equal(report.byDay.at(-1)!.requests, 2);
        assert.equal(sum(report.byDay.map((d) => d.requests)), 2);
        assert.deepEqual(
          report.byModel.map((m) => [m.modelId, m.requests]),
          [['scripted-model', 2]],
        );

        assert.equal(report.recent.length, 2);
        assert.ok(report.recent[0].at >= report.recent[1].at, 'newest first');
        for (const r of report.recent) {
          assert.deepEqual(Object.keys(r).sort(), ['at', 'completionTokens', 'diem', 'modelId', 'promptTokens', 'usd', 'via']);
          assert.equal(r.via, 'browser app');
        }
        // No request or answer text travels with the usage.
        const text = JSON.stringify(report);
        assert.ok(!text.includes('clownfish') && !text.includes('reef fish'));
      });

      test('scoped to the session: Bob sees only his own chat, and a new user sees an empty report', async () => {
        const b = await usageOf(local, bob);
        assert.equal(b.days, 30);
        assert.equal(b.byDay.length, 30);
        assert.equal(b.totals.requests, 1);
        assert.deepEqual(
          b.byModel.map((m) => m.modelId),
          ['plain-model'],
        );
        assert.equal(b.recent.length, 1);

        const carol = await testUser(h.svc.store);
        const c = await usageOf(local, carol, '?days=90');
        assert.deepEqual(c.totals, { requests: 0, promptTokens: 0, completionTokens: 0, usd: 0, diem: 0 });
        assert.equal(c.byDay.length, 90);
        assert.ok(c.byDay.every((d) => d.requests === 0));
        assert.deepEqual([c.byModel, c.recent], [[], []]);
      });

      test('requests made with one of the account’s API keys count too, named by the key', async () => {
        const { key, secret } = await accountKeys(h.svc.store, alice.user.accountId).create({ type: 'INFERENCE', description: 'my script' });
        secrets.push(secret);
        const r = await post(h, '/chat/completions', secret, { model: 'scripted-model', messages: [{ role: 'user', content: 'hi [[reply:ok]]' }] });
        assert.equal(r.status, 200, r.text);
        await h.svc.ledger.drain();
        const report = await usageOf(local, alice, '?days=7');
        assert.equal(report.totals.requests, 3);
        assert.equal(report.recent[0].via, key.description);
      });

      test('bad periods are a 400 naming the parameter; no session is a 401', async () => {
        for (const days of ['5', 'abc', '30.0', '-7', '7,30']) {
          const r = await call(local.usage, `/usage?days=${days}`, { browser: browserOf(alice) });
          assert.equal(r.status, 400, days);
          assert.equal(r.json.code, 'INVALID_REQUEST');
          assert.equal(r.json.param, 'days');
        }
        for (const handler of [local.usage, local.rateLimits, local.keys]) {
          const r = await call(handler, '/usage');
          assert.equal(r.status, 401);
          assert.equal(r.json.code, 'AUTHENTICATION_FAILED');
        }
      });

      test('remote mode: the usage the provider reported for the user’s own chats', async () => {
        const upstream = await h.newAccount({ usd: 5 });
        secrets.push(upstream.key);
        const remote = appFor({ INFERENCE_BASE_URL: h.base, INFERENCE_API_KEY: upstream.key });
        try {
          const dave = await testUser(h.svc.store, 0);
          const answer = await chatTurn(remote, dave, 'Remote hello [[reply:Hello from afar.]]');
          const report = await usageOf(remote, dave, '?days=7');
          assert.equal(report.source, 'chats');
          assert.equal(report.totals.requests, 1);
          assert.equal(report.totals.completionTokens, answer.usage!.completionTokens);
          assert.equal(report.totals.usd, answer.usage!.costUsd);
          assert.equal(report.byDay.at(-1)!.requests, 1);
          assert.deepEqual(
            report.byModel.map((m) => m.modelId),
            ['scripted-model'],
          );
          // Alice's chats are in the same database, and stay hers.
          assert.equal((await usageOf(remote, bob)).totals.requests, 1);
          const limits = await call(remote.rateLimits, '/rate-limits', { browser: browserOf(dave) });
          assert.equal(limits.json.mode, 'remote');
          assert.deepEqual(limits.json.models, []);
        } finally {
          await remote.chat.close();
        }
      });
    });

    describe('GET /api/app/rate-limits', () => {
      test('every text model with its figures; remaining drops after chats, per key, and reading consumes nothing', async () => {
        const before = Date.now();
        const a = await limitsOf(alice);
        assert.equal(a.mode, 'local');
        assert.equal(a.tier, 'default');
        const textModels = h.svc.catalogue.models.filter((m) => m.type === 'text').map((m) => m.id);
        assert.deepEqual(a.models.map((m) => m.modelId).sort(), textModels.sort());
        const scripted = a.models.find((m) => m.modelId === 'scripted-model')!;
        assert.equal(scripted.requestsPerMinute.limit, RPM);
        assert.equal(scripted.tokensPerMinute!.limit, TPM);
        assert.equal(scripted.requestsPerDay, RPD);
        // Alice's two browser chats counted against her browser key (her API-key request counts against that key).
        assert.equal(scripted.requestsPerMinute.remaining, RPM - 2);
        assert.ok(scripted.tokensPerMinute!.remaining < TPM, 'tokens were used');
        assert.ok(scripted.requestsPerMinute.resetsAt > before && scripted.tokensPerMinute!.resetsAt > before);

        const again = (await limitsOf(alice)).models.find((m) => m.modelId === 'scripted-model')!;
        assert.equal(again.requestsPerMinute.remaining, RPM - 2, 'reading the meter consumed nothing');

        const b = await limitsOf(bob);
        assert.equal(b.models.find((m) => m.modelId === 'scripted-model')!.requestsPerMinute.remaining, RPM);
        assert.equal(b.models.find((m) => m.modelId === 'plain-model')!.requestsPerMinute.remaining, RPM - 1);

        await chatTurn(local, alice, 'One more [[reply:Sure.]]');
        const after = (await limitsOf(alice)).models.find((m) => m.modelId === 'scripted-model')!;
        assert.equal(after.requestsPerMinute.remaining, RPM - 3);
      });
    });

    describe('GET /api/app/keys', () => {
      test('the account’s keys as metadata only: no secret, hash or last characters; the browser key marked, with spend', async () => {
        const keys = accountKeys(h.svc.store, alice.user.accountId);
        const { key: old, secret } = await keys.create({ type: 'ADMIN', description: 'old admin key', limitUsd: 5_000_000, limitPeriod: 'MONTH' });
        secrets.push(secret);
        await keys.revoke(old.id);
        // The latest chat's usage row is committed after its answer is done: wait for it, as the assertion reads it.
        await h.svc.ledger.drain();
        const r = await call(local.keys, '/keys', { browser: browserOf(alice) });
        assert.equal(r.status, 200, r.text);
        const list = r.json.keys as AppApiKey[];
        for (const k of list) {
          assert.deepEqual(Object.keys(k).sort(), [
            'browserApp',
            'cap',
            'createdAt',
            'description',
            'expiresAt',
            'id',
            'lastSevenDays',
            'lastUsedAt',
            'models',
            'revokedAt',
            'type',
          ]);
        }
        const stored = await h.svc.store.all<{ last6: string }>('SELECT last6 FROM api_keys WHERE account_id = $1', [alice.user.accountId]);
        for (const { last6 } of stored) assert.ok(!r.text.includes(last6), 'a key’s last characters reached the browser');

        assert.deepEqual(list.map((k) => k.description).sort(), ['browser app', 'my script', 'old admin key']);
        assert.equal(list.at(-1)!.description, 'old admin key', 'revoked keys come last');
        const browser = list.find((k) => k.browserApp)!;
        assert.equal(browser.description, 'browser app');
        assert.equal(list.filter((k) => k.browserApp).length, 1);
        assert.ok(browser.lastSevenDays.usd > 0, 'the chats’ spend shows on the browser key');
        const lastChat = await h.svc.store.get<{ at: number }>('SELECT MAX(created_at) AS at FROM usage WHERE key_id = $1', [browser.id]);
        assert.equal(browser.lastUsedAt, Number(lastChat!.at), 'the app’s key was last used by the latest chat');
        assert.ok(list.find((k) => k.description === 'my script')!.lastUsedAt! > 0, 'the API key was stamped when it authenticated');
        assert.equal(browser.cap, null);
        const revoked = list.find((k) => k.id === old.id)!;
        assert.ok(revoked.revokedAt !== null && revoked.type === 'ADMIN');
        assert.deepEqual(revoked.cap, { usd: 5, diem: null, period: 'MONTH', spentUsd: 0, spentDiem: 0 });

        const bobs = (await call(local.keys, '/keys', { browser: browserOf(bob) })).json.keys as AppApiKey[];
        assert.deepEqual(
          bobs.map((k) => k.description),
          ['browser app'],
        );
      });
    });
  });

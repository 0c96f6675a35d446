// The rate-limit page's routes on a real service, SQLite and PostgreSQL: every model's figures at the account's tier
// and what is left for the chosen key (a request with that key moves only its own meter; reading consumes nothing),
// the breach log (a real 429 shows up, filtered by type, model and key), another account's key is a 404, and bad
// input is a 400.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { post } from '../../e2e/support/harness.ts';
import { setAccountTier } from '../accounts/accounts.ts';
import { forgetPrincipals } from '../auth/keys.ts';
import type { BreachPage, LimitsReport } from '../wire.ts';
import { apiChat, BACKENDS, type Dash, type DashUser, startDash } from '../../e2e/support/app-dash.ts';

const RPM = 3;
const TPM = 100_000;

async function until<T>(probe: () => Promise<T | undefined | false>, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

for (const backend of BACKENDS)
  describe(`rate-limit routes (${backend})`, () => {
    let d: Dash;
    let alice: DashUser;
    let bob: DashUser;
    let key: { id: string; secret: string };

    before(async () => {
      d = await startDash(backend, { limits: { text: { default: { XS: { rpm: RPM, tpm: TPM, rpd: 1000 } } } } });
      alice = await d.newUser(10);
      bob = await d.newUser(10);
      key = await d.newKey(alice, 'INFERENCE', 'limited');
    });
    after(() => d?.close());

    const models = async (u: DashUser, query = '') => {
      const r = await d.call(d.routes.rateLimitModels, `/rate-limits/models${query}`, { browser: u.browser });
      assert.equal(r.status, 200, r.text);
      return r.json as LimitsReport;
    };
    const log = async (u: DashUser, query = '') => {
      const r = await d.call(d.routes.rateLimitLog, `/rate-limits/log${query}`, { browser: u.browser });
      assert.equal(r.status, 200, r.text);
      return r.json as BreachPage;
    };
    const meter = (r: LimitsReport, model: string) => r.models.find((m) => m.modelId === model)!;

    test('every model with its figures; a request with a key moves that key’s meter only, and reading consumes nothing', async () => {
      const before = await models(alice);
      assert.equal(before.tier, 'default');
      assert.equal(before.mode, 'local');
      assert.ok(before.keys.some((k) => k.id === key.id && !k.browserApp));
      assert.ok(
        before.keys.some((k) => k.id === before.keyId && k.browserApp),
        'the app’s own key by default',
      );
      const m = meter(before, 'scripted-model');
      assert.deepEqual(
        [m.requestsPerMinute.limit, m.requestsPerMinute.remaining, m.tokensPerMinute?.limit, m.requestsPerDay, m.type, m.sizeTier],
        [RPM, RPM, TPM, 1000, 'text', 'XS'],
      );
      assert.equal(before.models.length, d.h.svc.catalogue.models.length);

      await apiChat(d.h, key.secret);
      const mine = await models(alice, `?keyId=${key.id}`);
      assert.equal(mine.keyId, key.id);
      assert.equal(meter(mine, 'scripted-model').requestsPerMinute.remaining, RPM - 1);
      assert.ok(meter(mine, 'scripted-model').tokensPerMinute!.remaining < TPM);
      assert.equal(meter(mine, 'plain-model').requestsPerMinute.remaining, RPM, 'budgets are per model');
      assert.deepEqual([meter(mine, 'scripted-model').requestsToday?.limit, meter(mine, 'scripted-model').requestsToday?.remaining], [1000, 999]);
      assert.equal(meter(mine, 'plain-model').requestsToday?.remaining, 1000);
      assert.equal(meter(await models(alice), 'scripted-model').requestsPerMinute.remaining, RPM, 'the app’s key is untouched');
      assert.equal(meter(await models(alice, `?keyId=${key.id}`), 'scripted-model').requestsPerMinute.remaining, RPM - 1, 'reading consumed nothing');
    });

    test('the partner tier shows its own figures', async () => {
      await setAccountTier(d.h.svc.store, bob.user.accountId, 'partner');
      forgetPrincipals(d.h.svc.store);
      const r = await models(bob);
      assert.equal(r.tier, 'partner');
      assert.equal(meter(r, 'scripted-model').requestsPerMinute.limit, d.h.svc.limiter.config.text.partner.XS.rpm);
    });

    test('a refused request is in the breach log, filterable by type, model and key; nobody else sees it', async () => {
      let refused = 0;
      for (let i = 0; i < RPM + 1; i++) {
        const r = await post(d.h, '/chat/completions', key.secret, { model: 'plain-model', messages: [{ role: 'user', content: 'hi [[reply:ok]]' }] });
        if (r.status === 429) refused++;
      }
      assert.equal(refused, 1);
      const page = await until(async () => {
        const p = await log(alice);
        return p.total > 0 && p;
      }, 'the breach in the log');
      const [b] = page.items;
      assert.deepEqual([b.keyId, b.keyDescription, b.modelId, b.type, b.tier], [key.id, 'limited', 'plain-model', 'RPM', 'default']);
      assert.ok(Math.abs(b.at - Date.now()) < 60_000);
      assert.equal((await log(alice, '?type=RPM&modelId=plain-model')).total, 1);
      assert.equal((await log(alice, '?type=TPM')).total, 0);
      assert.equal((await log(alice, '?modelId=scripted-model')).total, 0);
      assert.equal((await log(alice, `?keyId=${key.id}`)).total, 1);
      assert.equal((await log(alice, `?from=${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)}`)).total, 0);
      assert.equal((await log(bob)).total, 0);
    });

    test('another account’s key is a 404; bad input is a 400; no session is a 401', async () => {
      const status = await d.call(d.routes.rateLimitModels, `/rate-limits/models?keyId=${key.id}`, { browser: bob.browser });
      assert.equal(status.status, 404);
      const logged = await d.call(d.routes.rateLimitLog, `/rate-limits/log?keyId=${key.id}`, { browser: bob.browser });
      assert.equal(logged.status, 404);
      for (const q of ['?type=RPH', '?limit=0', '?page=-1', '?from=soon', '?what=1']) {
        const r = await d.call(d.routes.rateLimitLog, `/rate-limits/log${q}`, { browser: alice.browser });
        assert.equal(r.status, 400, `${q}: ${r.text}`);
      }
      assert.equal((await d.call(d.routes.rateLimitModels, '/rate-limits/models?keyId=')).status, 401);
      assert.equal((await d.call(d.routes.rateLimitModels, '/rate-limits/models?keyId=', { browser: alice.browser })).status, 400);
      assert.equal((await d.call(d.routes.rateLimitLog, '/rate-limits/log')).status, 401);
    });
  });

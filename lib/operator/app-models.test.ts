// The operator's models page on a real service, SQLite and PostgreSQL: only the operator may use it; adding an
// OpenAI-compatible upstream (its key stored on the server, never sent back) serves it at once on /api/v1/models and
// chat, billed at its prices; editing prices, disabling and enabling take effect without a restart; a file model can
// be disabled and restored; tests report the engine's problem; every change is audited and survives a restart.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { get, post } from '../../e2e/support/harness.ts';
import { dataDirSecretsKey, secretBox } from '../db/secret-box.ts';
import { OperatorCatalogue } from '../models/operator-catalogue.ts';
import type { EngineTestResult, OperatorAuditPage, OperatorModel, OperatorModelsPage } from '../wire.ts';
import { BACKENDS, type Dash, type DashUser, startDash } from '../../e2e/support/app-dash.ts';

const UPSTREAM_KEY = 'sk-operator-upstream-key-0123456789abcdef';

for (const backend of BACKENDS)
  describe(`operator models (${backend})`, () => {
    let d: Dash;
    let op: DashUser;
    let bob: DashUser;
    let bobKey: { id: string; secret: string };
    /** The scripted engine's origin, without /v1 (the page adds it). */
    let upstreamOrigin: string;

    before(async () => {
      d = await startDash(backend);
      op = await d.newUser(0);
      bob = await d.newUser(50);
      bobKey = await d.newKey(bob, 'INFERENCE', 'bob key');
      upstreamOrigin = new URL(d.h.engine.url).origin;
    });
    after(() => d?.close());

    const list = async () => {
      const r = await d.call(d.routes.operatorModels, '/operator/models', { browser: op.browser });
      assert.equal(r.status, 200, r.text);
      assert.ok(!r.text.includes(UPSTREAM_KEY), 'the stored key is never sent back');
      return (r.json as OperatorModelsPage).models;
    };
    const add = (body: unknown, who = op) => d.call(d.routes.operatorAddModel, '/operator/models', { method: 'POST', body, browser: who.browser });
    const patch = (id: string, body: unknown, who = op) =>
      d.call(d.routes.operatorUpdateModel, `/operator/models/${id}`, { method: 'PATCH', body, browser: who.browser }, { id });
    const remove = (id: string) => d.call(d.routes.operatorRemoveModel, `/operator/models/${id}`, { method: 'DELETE', browser: op.browser }, { id });
    const apiModel = async (id: string) => {
      const r = await get(d.h, '/models?type=text', bobKey.secret);
      assert.equal(r.status, 200, r.text);
      return (r.json.data as { id: string; model_spec: { pricing: { input: { usd: number } } } }[]).find((m) => m.id === id);
    };
    const chat = (model: string) =>
      post(d.h, '/chat/completions', bobKey.secret, { model, messages: [{ role: 'user', content: 'hi [[reply:from the upstream]]' }] });

    test('only the operator: anyone else is refused (403), and signed out 401', async () => {
      for (const r of [
        await d.call(d.routes.operatorModels, '/operator/models', { browser: bob.browser }),
        await add({ id: 'x', baseUrl: upstreamOrigin, pricing: { inputUsd: 1, outputUsd: 1 } }, bob),
        await patch('plain-model', { disabled: true }, bob),
        await d.call(d.routes.operatorTestEngine, '/operator/engines/test', { method: 'POST', body: { baseUrl: upstreamOrigin }, browser: bob.browser }),
      ])
        assert.equal(r.status, 403, r.text);
      assert.equal((await d.call(d.routes.operatorModels, '/operator/models')).status, 401);
    });

    test('lists the catalogue file’s models with their engines', async () => {
      const models = await list();
      const plain = models.find((m) => m.id === 'plain-model');
      assert.ok(plain);
      assert.equal(plain.origin, 'file');
      assert.equal(plain.disabled, false);
      assert.equal(plain.engine.kind, 'openai');
      assert.deepEqual(plain.engine.key, { source: 'none' });
      assert.deepEqual(plain.pricing, { inputUsd: 0.5, outputUsd: 1, inputDiem: 0.5, outputDiem: 1 });
    });

    test('bad input is a 400 naming the field, and nothing is added', async () => {
      const base = { id: 'bad-one', baseUrl: upstreamOrigin, pricing: { inputUsd: 1, outputUsd: 1 } };
      for (const [body, param] of [
        [{ ...base, id: 'plain-model' }, 'id'],
        [{ ...base, id: 'PLAIN-MODEL' }, 'id'],
        [{ ...base, id: '../etc' }, 'id'],
        [{ ...base, baseUrl: 'ftp://example.test' }, 'baseUrl'],
        [{ ...base, baseUrl: 'http://user:pw@example.test/v1' }, 'baseUrl'],
        [{ ...base, apiKey: 'k', apiKeyEnv: 'K' }, undefined],
        [{ ...base, apiKeyEnv: 'LAGOON_SURELY_UNSET_VARIABLE' }, 'apiKeyEnv'],
        [{ ...base, pricing: { inputUsd: -1, outputUsd: 1 } }, 'pricing.inputUsd'],
        [{ ...base, type: 'embedding' }, 'dimensions'],
        [{ ...base, extra: 1 }, undefined],
      ] as const) {
        const r = await add(body);
        assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
        if (param) assert.equal(r.json.param ?? r.json.issues?.[0]?.path.join('.'), param, r.text);
      }
      assert.ok(!(await list()).some((m) => m.id === 'bad-one'));
      assert.equal((await add('not json')).status, 400);
    });

    test('a server variable not made for upstream keys is refused, and nothing is sent (issue 28)', async () => {
      const base = { id: 'leaky', baseUrl: upstreamOrigin, pricing: { inputUsd: 1, outputUsd: 1 } };
      d.h.engine.requests.length = 0;
      for (const name of ['DATABASE_URL', 'LAGOON_RPC_UPSTREAMS', 'PATH', 'LAGOON_UPSTREAM_KEY_']) {
        const added = await add({ ...base, apiKeyEnv: name });
        assert.deepEqual([added.status, added.json.param], [400, 'apiKeyEnv'], added.text);
        assert.match(added.json.error, /LAGOON_UPSTREAM_KEY_<NAME>/);
        const tested = await d.call(d.routes.operatorTestEngine, '/operator/engines/test', {
          method: 'POST',
          body: { baseUrl: upstreamOrigin, apiKeyEnv: name },
          browser: op.browser,
        });
        assert.deepEqual([tested.status, tested.json.param], [400, 'apiKeyEnv'], tested.text);
      }
      assert.equal(d.h.engine.requests.length, 0, 'the upstream saw no request');
      assert.ok(!(await list()).some((m) => m.id === 'leaky'));
      // A name made for the purpose passes this rule (and is then checked for being set).
      const unset = await add({ ...base, apiKeyEnv: 'LAGOON_UPSTREAM_KEY_LEAKY' });
      assert.deepEqual([unset.status, unset.json.param], [400, 'apiKeyEnv']);
      assert.match(unset.json.error, /is not set on this server/);
    });

    test('an added upstream serves chat at once, with its stored key, at its prices', async () => {
      const r = await add({
        id: 'op-upstream',
        name: 'Operator upstream',
        baseUrl: upstreamOrigin,
        upstreamModel: 'scripted',
        apiKey: UPSTREAM_KEY,
        pricing: { inputUsd: 3, outputUsd: 6 },
        capabilities: { functionCalling: true },
      });
      assert.equal(r.status, 201, r.text);
      assert.ok(!r.text.includes(UPSTREAM_KEY));
      const m = r.json.model as OperatorModel;
      assert.equal(m.origin, 'operator');
      assert.deepEqual(m.engine.key, { source: 'stored' });
      assert.deepEqual(m.engine.baseUrls, [`${upstreamOrigin}/v1`], 'the OpenAI path is added to a bare origin');
      assert.equal(m.engine.upstreamModel, 'scripted');

      assert.equal((await apiModel('op-upstream'))?.model_spec.pricing.input.usd, 3);
      const app = await d.call(d.routes.models, '/models', { browser: bob.browser });
      assert.ok(
        (app.json.models as { id: string }[]).some((x) => x.id === 'op-upstream'),
        'the app’s model list has it',
      );

      d.h.engine.requests.length = 0;
      const c = await chat('op-upstream');
      assert.equal(c.status, 200, c.text);
      assert.equal(c.json.choices[0].message.content, 'from the upstream');
      const seen = d.h.engine.requests.at(-1);
      assert.equal(seen?.headers.authorization, `Bearer ${UPSTREAM_KEY}`, 'the stored key reaches the upstream');
      assert.equal((seen?.body as { model?: string } | undefined)?.model, 'scripted');
      const usage = c.json.usage as { prompt_tokens: number; completion_tokens: number };
      const expected = (usage.prompt_tokens * 3 + usage.completion_tokens * 6) / 1e6;
      await d.h.svc.ledger.drain();
      const row = await d.h.svc.store.get<{ usd: number | string }>('SELECT usd FROM usage WHERE model_id = $1 ORDER BY created_at DESC LIMIT 1', [
        'op-upstream',
      ]);
      assert.ok(row, 'a usage row for the added model');
      assert.ok(Math.abs(Number(row.usd) / 1e6 - expected) < 0.000002, `billed ${Number(row.usd) / 1e6}, expected ${expected}`);
    });

    test('prices edit, disable and enable without a restart', async () => {
      let r = await patch('op-upstream', { pricing: { inputUsd: 7, outputUsd: 8 } });
      assert.equal(r.status, 200, r.text);
      assert.equal((r.json.model as OperatorModel).pricesOverridden, true);
      assert.equal((await apiModel('op-upstream'))?.model_spec.pricing.input.usd, 7);

      r = await patch('op-upstream', { disabled: true });
      assert.equal(r.status, 200, r.text);
      assert.equal((r.json.model as OperatorModel).disabled, true);
      assert.equal(await apiModel('op-upstream'), undefined, '/models leaves a disabled model out');
      const refused = await chat('op-upstream');
      assert.equal(refused.status, 404, refused.text);
      assert.ok((await list()).find((m) => m.id === 'op-upstream')?.disabled, 'the page still lists it, disabled');

      r = await patch('op-upstream', { disabled: false });
      assert.equal(r.status, 200, r.text);
      assert.equal((await chat('op-upstream')).status, 200);
      assert.equal((await apiModel('op-upstream'))?.model_spec.pricing.input.usd, 7, 'the edited prices stay');

      assert.equal((await patch('op-upstream', {})).status, 400);
      assert.equal((await patch('op-upstream', { pricing: { inputUsd: 1e9, outputUsd: 1 } })).status, 400);
      assert.equal((await patch('no-such-model', { disabled: true })).status, 404);
    });

    test('a file model: disabled, repriced, then restored as written', async () => {
      assert.equal((await patch('plain-model', { disabled: true })).status, 200);
      assert.equal((await chat('plain-model')).status, 404);
      assert.equal((await patch('plain-model', { disabled: false, pricing: { inputUsd: 0.25, outputUsd: 0.5 } })).status, 200);
      assert.equal((await chat('plain-model')).status, 200);
      assert.equal((await apiModel('plain-model'))?.model_spec.pricing.input.usd, 0.25);
      assert.equal((await remove('plain-model')).status, 204);
      assert.equal((await apiModel('plain-model'))?.model_spec.pricing.input.usd, 0.5, 'back to the file’s price');
      assert.equal((await remove('plain-model')).status, 400, 'nothing left to undo');
    });

    test('testing: a working upstream, and a closed port named in the reason', async () => {
      const ok = await d.call(d.routes.operatorTestModel, '/operator/models/op-upstream/test', { method: 'POST', browser: op.browser }, { id: 'op-upstream' });
      assert.equal(ok.status, 200, ok.text);
      assert.equal((ok.json as EngineTestResult).ok, true, ok.text);
      assert.deepEqual((await list()).find((m) => m.id === 'op-upstream')?.status?.ok, true);

      const closed = await d.call(d.routes.operatorTestEngine, '/operator/engines/test', {
        method: 'POST',
        body: { baseUrl: 'http://127.0.0.1:9', apiKey: UPSTREAM_KEY },
        browser: op.browser,
      });
      assert.equal(closed.status, 200, closed.text);
      const res = closed.json as EngineTestResult;
      assert.equal(res.ok, false);
      assert.match(res.reason ?? '', /refused|reach/);
      assert.ok(!closed.text.includes(UPSTREAM_KEY));
      assert.equal(
        (await d.call(d.routes.operatorTestEngine, '/operator/engines/test', { method: 'POST', body: { baseUrl: 'nope' }, browser: op.browser })).status,
        400,
      );
    });

    test('the changes survive a restart (another instance reads them from the store)', async () => {
      const fresh = { ...d.h.svc.catalogue, models: [...d.h.svc.operatorCatalogue.fileModels()], byId: new Map() };
      const key = d.h.svc.config.secretsKey ?? dataDirSecretsKey(d.h.dataDir);
      const other = new OperatorCatalogue(d.h.svc.store, fresh, undefined, secretBox(key));
      assert.equal(await other.refresh(), true);
      assert.equal(fresh.byId.get('op-upstream')?.pricing.input_usd, 7);
      assert.equal(other.storedKey('lagoon-operator-key:op-upstream'), UPSTREAM_KEY);
      // The database holds the key sealed: a copy of it without the secrets key does not give it away.
      const row = await d.h.svc.store.get<{ api_key: string }>('SELECT api_key FROM operator_catalogue WHERE model_id = $1', ['op-upstream']);
      assert.ok(row?.api_key.startsWith('sealed:v1:'), row?.api_key);
      assert.ok(!row?.api_key.includes(UPSTREAM_KEY.slice(3, 20)));
      const stranger = new OperatorCatalogue(
        d.h.svc.store,
        { ...fresh, models: [...fresh.models], byId: new Map() },
        undefined,
        secretBox(crypto.randomBytes(32)),
      );
      await stranger.refresh();
      assert.equal(stranger.storedKey('lagoon-operator-key:op-upstream'), undefined, 'another secrets key does not open it');
      assert.equal(await other.refresh(), false, 'nothing changed since');
    });

    test('removing an added model takes it off /models; every change is in the audit log', async () => {
      assert.equal((await remove('op-upstream')).status, 204);
      assert.equal(await apiModel('op-upstream'), undefined);
      assert.equal((await chat('op-upstream')).status, 404);
      const r = await d.call(d.routes.operatorAudit, '/operator/audit?limit=200', { browser: op.browser });
      const actions = (r.json as OperatorAuditPage).entries.map((e) => `${e.action}:${String(e.details.model)}`);
      for (const a of ['model_add:op-upstream', 'model_update:op-upstream', 'model_update:plain-model', 'model_remove:op-upstream', 'model_remove:plain-model'])
        assert.ok(actions.includes(a), `${a} in ${actions.join(', ')}`);
      assert.ok(!r.text.includes(UPSTREAM_KEY));
    });
  });

// The operator's default model for new chats, on SQLite and PostgreSQL: only the operator sets it (to a chat model
// this server serves); the app's model list flags it and a chat created without a model starts on it; it is kept in
// the store (another instance, or this one after a restart, reads the same); a disabled or removed choice gives way
// to the built-in default (a real model before the demo one) and comes back when enabled again; null clears it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BACKENDS, type Dash, type DashUser, startDash } from '../../e2e/support/app-dash.ts';
import { createAppBackend } from '../http/app-backend.ts';
import type { AppConversation, AppModelsResponse, OperatorDefaultModel, OperatorModelsPage } from '../wire.ts';
import { DEFAULT_MODEL_TTL_MS, readDefaultModel, writeDefaultModel } from './default-model.ts';

for (const backend of BACKENDS)
  describe(`the operator's default model (${backend})`, () => {
    let d: Dash;
    let op: DashUser;
    let bob: DashUser;

    before(async () => {
      // A demo model marked default in the file, as a fresh install has it, next to the harness's real ones.
      d = await startDash(backend, {
        models: [
          {
            id: 'demo-model',
            name: 'Demo',
            type: 'text',
            demo: true,
            tier: 'XS',
            traits: ['default'],
            pricing: { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0 },
            context_length: 4096,
            engine: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1' },
          },
        ],
      });
      op = await d.newUser();
      bob = await d.newUser();
    });
    after(() => d?.close());

    const models = async (routes = d.routes) => {
      const r = await d.call(routes.models, '/models', { browser: bob.browser });
      assert.equal(r.status, 200, r.text);
      return (r.json as AppModelsResponse).models;
    };
    const defaultOf = async (routes = d.routes) => (await models(routes)).filter((m) => m.isDefault).map((m) => m.id);
    const setDefault = (modelId: string | null, who = op) =>
      d.call(d.routes.operatorSetDefaultModel, '/operator/default-model', { method: 'PUT', body: { modelId }, browser: who.browser });
    const newChat = async () => {
      const r = await d.call(d.routes.createConversation, '/conversations', { method: 'POST', body: {}, browser: bob.browser });
      assert.equal(r.status, 201, r.text);
      return (r.json as AppConversation).modelId;
    };
    const page = async () => {
      const r = await d.call(d.routes.operatorModels, '/operator/models', { browser: op.browser });
      assert.equal(r.status, 200, r.text);
      return r.json as OperatorModelsPage;
    };

    test('without a choice: a real model before the demo one the file marks default', async () => {
      assert.ok((await models()).some((m) => m.id === 'demo-model' && m.demo));
      const real = await defaultOf();
      assert.equal(real.length, 1);
      assert.notEqual(real[0], 'demo-model');
      assert.equal(await newChat(), real[0]);
      const p = await page();
      assert.equal(p.defaultModelId, null);
      assert.equal(p.appDefaultModelId, real[0]);
    });

    test('only the operator sets it, and only to a chat model this server serves', async () => {
      assert.equal((await setDefault('plain-model', bob)).status, 403);
      for (const bad of ['no-such-model', 'default', 'gpt-4o']) {
        const r = await setDefault(bad);
        assert.equal(r.status, 400, `${bad}: ${r.text}`);
        assert.equal((r.json as { param?: string }).param, 'modelId');
      }
      assert.equal(await readDefaultModel(d.h.svc.store), null, 'nothing stored by a refused choice');
      const noCsrf = await d.call(d.routes.operatorSetDefaultModel, '/operator/default-model', {
        method: 'PUT',
        body: { modelId: 'plain-model' },
        browser: op.browser,
        noCsrf: true,
      });
      assert.equal(noCsrf.status, 403);
    });

    test('chosen: flagged in the list, new chats start on it, kept in the store for every instance', async () => {
      const r = await setDefault('plain-model');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json as OperatorDefaultModel, { defaultModelId: 'plain-model', appDefaultModelId: 'plain-model' });
      assert.deepEqual(await defaultOf(), ['plain-model']);
      assert.equal(await newChat(), 'plain-model');
      // Another backend over the same store (another instance, or this one restarted) reads the same choice.
      const other = createAppBackend(d.h.svc);
      try {
        assert.deepEqual(await defaultOf(other.routes), ['plain-model']);
        // A change made by this process is seen at once by every backend on its store: the cache goes with the write.
        await writeDefaultModel(d.h.svc.store, 'vision-model');
        assert.deepEqual(await defaultOf(), ['vision-model']);
        assert.deepEqual(await defaultOf(other.routes), ['vision-model']);
      } finally {
        await other.close();
      }
      assert.equal((await setDefault('plain-model')).status, 200);
    });

    test("another instance's change (the row written under this one) applies within the cache's lifetime", async () => {
      const store = d.h.svc.store;
      const now = Date.now();
      assert.equal(await readDefaultModel(store, now), 'plain-model');
      await store.run('UPDATE app_settings SET value = $1 WHERE name = $2', ['vision-model', 'default_model']);
      try {
        assert.equal(await readDefaultModel(store, now + 1), 'plain-model', 'read from the cache, not per turn');
        assert.equal(await readDefaultModel(store, now + DEFAULT_MODEL_TTL_MS), 'vision-model', 'read again once the cache expires');
      } finally {
        assert.equal((await setDefault('plain-model')).status, 200);
      }
      assert.deepEqual(await defaultOf(), ['plain-model'], "this process's own change applies at once");
    });

    test('a disabled choice gives way to the built-in default and comes back when enabled; null clears it', async () => {
      const builtIn = (await page()).models.find((m) => m.id === 'scripted-model');
      assert.ok(builtIn);
      const off = await d.call(
        d.routes.operatorUpdateModel,
        '/operator/models/plain-model',
        { method: 'PATCH', body: { disabled: true }, browser: op.browser },
        { id: 'plain-model' },
      );
      assert.equal(off.status, 200, off.text);
      assert.deepEqual(await defaultOf(), ['scripted-model']);
      assert.equal(await newChat(), 'scripted-model');
      const p = await page();
      assert.equal(p.defaultModelId, 'plain-model', 'the choice is kept');
      assert.equal(p.appDefaultModelId, 'scripted-model');
      const on = await d.call(
        d.routes.operatorUpdateModel,
        '/operator/models/plain-model',
        { method: 'PATCH', body: { disabled: false }, browser: op.browser },
        { id: 'plain-model' },
      );
      assert.equal(on.status, 200, on.text);
      assert.deepEqual(await defaultOf(), ['plain-model']);
      const cleared = await setDefault(null);
      assert.equal(cleared.status, 200, cleared.text);
      assert.equal((cleared.json as OperatorDefaultModel).defaultModelId, null);
      assert.deepEqual(await defaultOf(), ['scripted-model']);
    });
  });

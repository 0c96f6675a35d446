// Names that are Object.prototype members are ordinary unknown names: as a model (chat, embeddings, the app's
// conversation creation), a character slug, a trait or alias, or a model suffix parameter they get our 404 / 400
// error body, never a 500 from a lookup that found an inherited member.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { authRoutes } from '../../lib/account/app-auth.ts';
import { conversationRoutes } from '../../lib/conversations/app-routes.ts';
import { type Browser, caller, cookieFrom } from '../support/app-requests.ts';
import { get, type Harness, post, startHarness } from '../support/harness.ts';

const NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupGetter__',
];

let h: Harness;
let key: string;
before(async () => {
  h = await startHarness({
    models: [
      {
        id: 'embed-model',
        name: 'Embed',
        type: 'embedding',
        tier: 'XS',
        pricing: { input_usd: 0.1, output_usd: 0, input_diem: 0.1, output_diem: 0 },
        context_length: 8192,
        embedding: { dimensions: 16, max_input_tokens: 8192 },
        engine: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'scripted' },
      },
    ],
  });
  ({ key } = await h.newAccount({ usd: 10 }));
});
after(() => h.close());

function assertOurError(r: { status: number; json: any; text: string }, status: number, code: string, what: string) {
  assert.equal(r.status, status, `${what}: ${r.text}`);
  assert.equal(r.json?.code, code, `${what}: ${r.text}`);
  assert.equal(typeof r.json.error, 'string');
}

const chat = (body: Record<string, unknown>) => post(h, '/chat/completions', key, { messages: [{ role: 'user', content: 'hi' }], ...body });

describe('the API', () => {
  test('chat: each name as the model is 404 MODEL_NOT_FOUND', async () => {
    for (const name of NAMES) assertOurError(await chat({ model: name }), 404, 'MODEL_NOT_FOUND', name);
  });

  test('embeddings: each name as the model is 404 MODEL_NOT_FOUND', async () => {
    for (const name of NAMES) assertOurError(await post(h, '/embeddings', key, { model: name, input: 'hi' }), 404, 'MODEL_NOT_FOUND', name);
  });

  test('each name as a character slug (body or suffix) is 404 CHARACTER_NOT_FOUND', async () => {
    for (const name of NAMES) {
      assertOurError(await chat({ model: 'scripted-model', service_parameters: { character_slug: name } }), 404, 'CHARACTER_NOT_FOUND', name);
      assertOurError(await chat({ model: `scripted-model:character_slug=${encodeURIComponent(name)}` }), 404, 'CHARACTER_NOT_FOUND', `suffix ${name}`);
      assertOurError(await get(h, `/characters/${encodeURIComponent(name)}`, key), 404, 'CHARACTER_NOT_FOUND', `GET ${name}`);
      assertOurError(await get(h, `/characters?${encodeURIComponent(name)}=1`, key), 400, 'INVALID_REQUEST', `?${name}`);
    }
  });

  test('each name as a model suffix parameter is ignored like any unknown one; as the suffixed model, 404', async () => {
    for (const name of NAMES) {
      const r = await chat({ model: `scripted-model:${encodeURIComponent(name)}=true` });
      assert.equal(r.status, 200, `${name}: ${r.text}`);
      assertOurError(await chat({ model: `${name}:enable_web_search=off` }), 404, 'MODEL_NOT_FOUND', `${name} suffixed`);
    }
  });

  test('each name as an unknown body field or a service_parameters field is dropped like any unknown one', async () => {
    for (const name of NAMES) {
      const body = JSON.parse(`{"model":"scripted-model","messages":[{"role":"user","content":"hi"}],${JSON.stringify(name)}:{"model":"x"}}`);
      const plain = await post(h, '/chat/completions', key, JSON.stringify(body));
      assert.equal(plain.status, 200, `field ${name}: ${plain.text}`);
      assert.equal(plain.json.model, 'scripted-model', `field ${name} did not change the model`);
      assert.equal(({} as Record<string, unknown>).model, undefined, 'Object.prototype untouched');
      const params = JSON.parse(`{"model":"scripted-model","messages":[{"role":"user","content":"hi"}],"service_parameters":{${JSON.stringify(name)}:true}}`);
      const r = await post(h, '/chat/completions', key, JSON.stringify(params));
      assert.equal(r.status, 200, `parameter ${name}: ${r.text}`);
    }
  });
});

describe("the app's conversation creation", () => {
  test('each name as the model is 404 MODEL_NOT_FOUND; as the character, 404 CHARACTER_NOT_FOUND', async () => {
    const call = caller(h.svc.store);
    const deps = { svc: h.svc, app: h.svc.config.app };
    const auth = authRoutes(deps);
    const conv = conversationRoutes(deps);
    const r = await call(auth.signUp, '/auth/sign-up', {
      method: 'POST',
      body: { email: 'proto@example.com', password: 'correct horse battery' },
      browser: { ip: '192.0.2.77' },
    });
    assert.equal(r.status, 201, r.text);
    const u: Browser = { ip: '192.0.2.77', cookie: cookieFrom(r), csrf: r.json.csrfToken };
    const create = (body: Record<string, unknown>) => call(conv.createConversation, '/conversations', { method: 'POST', body, browser: u });
    for (const name of NAMES) {
      assertOurError(await create({ modelId: name }), 404, 'MODEL_NOT_FOUND', `model ${name}`);
      assertOurError(await create({ characterSlug: name }), 404, 'CHARACTER_NOT_FOUND', `character ${name}`);
    }
  });
});

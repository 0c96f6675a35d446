// The app's catalogue routes: models (text only, prices, capabilities, the default), characters (search, photos),
// the account summary, and remote mode (lists from INFERENCE_BASE_URL with the server-held key, which never leaves).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, scriptedModel, startHarness } from '../../e2e/support/harness.ts';
import { grantUsd } from '../billing/ledger.ts';
import { toMicros } from '../billing/money.ts';
import { loadConfig } from '../config.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { authRoutes } from '../account/app-auth.ts';
import { catalogueRoutes } from './app-routes.ts';
import { characterRoutes } from '../characters/app-routes.ts';
import { conversationRoutes } from '../conversations/app-routes.ts';
import { safePhotoUrl } from './source.ts';
import { type Browser, caller, cookieFrom } from '../../e2e/support/app-requests.ts';
import { operatorSetupToken } from '../users/operator-setup.ts';

let h: Harness;
let remoteKey: string;
let call: ReturnType<typeof caller>;
let auth: ReturnType<typeof authRoutes>;
let cat: ReturnType<typeof catalogueRoutes>;
let chars: ReturnType<typeof characterRoutes>;
let n = 0;
let admin: Browser; // the operator (signed up with the setup token)

async function newUser(setupToken?: string): Promise<Browser & { accountId: string }> {
  const r = await call(auth.signUp, '/auth/sign-up', {
    method: 'POST',
    body: { email: `k${++n}@example.com`, password: 'correct horse battery', ...(setupToken ? { setupToken } : {}) },
    browser: { ip: `192.0.2.${n}` },
  });
  assert.equal(r.status, 201, r.text);
  const row = await h.svc.store.get<{ account_id: string }>('SELECT account_id FROM users WHERE id = $1', [r.json.user.id]);
  return { ip: `192.0.2.${n}`, cookie: cookieFrom(r), csrf: r.json.csrfToken, accountId: row!.account_id };
}

before(async () => {
  h = await startHarness({
    models: (url) => [
      scriptedModel('embed-model', url, { type: 'embedding', capabilities: {} }),
      scriptedModel('web-model', url, { description: 'Searches the web', capabilities: { web_search: true, vision: true } }),
    ],
    // The remote's character photoUrls are absolute on its public origin: its own address here.
    publicUrl: (o) => o,
  });
  remoteKey = (await h.newAccount()).key;
  call = caller(h.svc.store, () => [remoteKey]);
  const deps: AppDeps = { svc: h.svc, app: h.svc.config.app };
  auth = authRoutes(deps);
  cat = catalogueRoutes(deps);
  chars = characterRoutes(deps);
  admin = await newUser(await operatorSetupToken(h.svc.store, undefined));
});
after(() => h.close());

describe('models', () => {
  test('text models only, with prices per million tokens, capabilities and one default', async () => {
    const u = await newUser();
    const r = await call(cat.models, '/models', { browser: u });
    assert.equal(r.status, 200);
    const ids = r.json.models.map((m: { id: string }) => m.id);
    assert.deepEqual(ids, ['scripted-model', 'plain-model', 'vision-model', 'old-model', 'web-model']);
    const byId = Object.fromEntries(r.json.models.map((m: { id: string }) => [m.id, m]));
    assert.deepEqual(byId['scripted-model'], {
      id: 'scripted-model',
      name: 'Scripted scripted-model',
      pricing: { inputUsd: 1, outputUsd: 2 },
      contextLength: 8192,
      capabilities: { vision: false, reasoning: true, webSearch: false, functionCalling: true, e2ee: false },
      traits: ['default', 'fastest'],
      isDefault: true,
    });
    assert.deepEqual(byId['plain-model'].pricing, { inputUsd: 0.5, outputUsd: 1 });
    assert.equal(byId['vision-model'].capabilities.vision, true);
    assert.equal(byId['web-model'].description, 'Searches the web');
    // Web search is a capability only where this server has a search provider.
    assert.equal(byId['web-model'].capabilities.webSearch, h.svc.searchAvailable);
    assert.equal(r.json.models.filter((m: { isDefault: boolean }) => m.isDefault).length, 1);
    assert.doesNotMatch(r.text, /scripted-engine|baseUrl|127\.0\.0\.1/, 'engine details stay on the server');
  });

  test('signed out: 401', async () => {
    assert.equal((await call(cat.models, '/models')).status, 401);
    assert.equal((await call(chars.characters, '/characters')).status, 401);
    assert.equal((await call(cat.account, '/account')).status, 401);
  });
});

describe('characters', () => {
  test('every seeded character with its photo; q searches name, description and tags', async () => {
    const u = await newUser();
    const all = await call(chars.characters, '/characters', { browser: u });
    assert.equal(all.status, 200);
    assert.equal(all.json.characters.length, 4);
    const ada = all.json.characters.find((c: { slug: string }) => c.slug === 'ada-the-archivist');
    assert.deepEqual(Object.keys(ada).sort(), [
      'adult',
      'avatarUrl',
      'createdAt',
      'description',
      'modelId',
      'name',
      'owner',
      'photoUrl',
      'slug',
      'stats',
      'tags',
      'updatedAt',
      'visibility',
    ]);
    assert.equal(ada.photoUrl, '/characters/ada-the-archivist.svg');
    assert.equal(ada.avatarUrl, '/characters/ada-the-archivist.svg');
    assert.equal(ada.owner, null, 'shipped with the server');
    assert.ok(ada.tags.includes('research'));
    assert.ok(!('systemPrompt' in ada), 'system prompts are not sent');

    const q = async (text: string) =>
      (await call(chars.characters, `/characters?q=${encodeURIComponent(text)}`, { browser: u })).json.characters.map((c: { slug: string }) => c.slug).sort();
    assert.deepEqual(await q('REVIEW'), ['code-reviewer']);
    assert.deepEqual(await q('sea story'), ['captain-reef']);
    assert.deepEqual(await q('education'), ['captain-reef', 'socratic-tutor']);
    assert.deepEqual(await q('100%'), []);
    assert.deepEqual(await q('  '), (await q('')).sort());
    const long = await call(chars.characters, `/characters?q=${'x'.repeat(201)}`, { browser: u });
    assert.equal(long.status, 400);
    assert.equal(long.json.param, 'q');
  });

  test('photo URLs are http(s) or a path on this site, never a script', () => {
    assert.equal(safePhotoUrl('/characters/a.svg'), '/characters/a.svg');
    assert.equal(safePhotoUrl('https://cdn.example/a.png'), 'https://cdn.example/a.png');
    assert.equal(safePhotoUrl('javascript:alert(1)'), null);
    assert.equal(safePhotoUrl('data:image/svg+xml,<svg onload=alert(1)>'), null);
    assert.equal(safePhotoUrl('//evil.example/a.png'), null);
    assert.equal(safePhotoUrl('/characters/a.svg', 'https://api.example/api/v1'), 'https://api.example/characters/a.svg');
    assert.equal(safePhotoUrl(null), null);
  });
});

describe('account', () => {
  test('spendable USD and DIEM, the allowance, and how to add credit (in words: no shell command for anyone)', async () => {
    const u = await newUser();
    await grantUsd(h.svc.store, u.accountId, toMicros(3.25));
    const r = await call(cat.account, '/account', { browser: u });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.balances, { usd: 3.25, diem: 1 });
    assert.equal(r.json.diemDailyAllowance, 1);
    assert.ok(Date.parse(r.json.diemResetsAt) > Date.now());
    assert.equal(r.json.topUp.url, null);
    assert.match(r.json.topUp.howTo, /added by its operator: ask them/);
    assert.equal(r.json.topUp.wallet, false);
    const a = await call(cat.account, '/account', { browser: admin });
    assert.match(a.json.topUp.howTo, /You are this server's operator: grant USD credit .* from the Operator page/);
    for (const howTo of [r.json.topUp.howTo, a.json.topUp.howTo]) assert.doesNotMatch(howTo, /npx|`|--account/);
  });
});

describe('remote mode (INFERENCE_BASE_URL + INFERENCE_API_KEY)', () => {
  test('models and characters come from the remote API with the server-held key; the key never reaches a response', async () => {
    const deps: AppDeps = { svc: h.svc, app: loadConfig({ INFERENCE_BASE_URL: `${h.base}/`, INFERENCE_API_KEY: remoteKey }).app };
    const remote = catalogueRoutes(deps);
    const u = await newUser();
    const models = await call(remote.models, '/models', { browser: u });
    assert.equal(models.status, 200, models.text);
    const local = await call(cat.models, '/models', { browser: u });
    assert.deepEqual(models.json.models, local.json.models, 'the remote lists the same catalogue (this harness is the remote)');
    // Web search there is the remote API's to decide: the app offers the choice.
    assert.deepEqual(models.json.webSearch, { available: true, reason: null });

    const chars = await call(characterRoutes(deps).characters, '/characters?q=tutor', { browser: u });
    assert.equal(chars.status, 200, chars.text);
    assert.deepEqual(
      chars.json.characters.map((c: { slug: string }) => c.slug),
      ['socratic-tutor'],
    );
    // A relative photo path is the remote site's.
    assert.equal(chars.json.characters[0].photoUrl, `${new URL(h.base).origin}/characters/socratic-tutor.svg`);

    const conv = conversationRoutes(deps);
    const created = await call(conv.createConversation, '/conversations', {
      method: 'POST',
      body: { characterSlug: 'code-reviewer', modelId: 'plain-model' },
      browser: u,
    });
    assert.equal(created.status, 201, created.text);
    const missing = await call(conv.createConversation, '/conversations', { method: 'POST', body: { modelId: 'not-remote' }, browser: u });
    assert.equal(missing.json.code, 'MODEL_NOT_FOUND');
    const acct = await call(remote.account, '/account', { browser: u });
    assert.match(acct.json.topUp.howTo, /operator/);
  });

  test('an unreachable remote API is a clear 503 with retry-after, without upstream details', async () => {
    const remote = catalogueRoutes({ svc: h.svc, app: loadConfig({ INFERENCE_BASE_URL: 'http://127.0.0.1:9/api/v1', INFERENCE_API_KEY: remoteKey }).app });
    const u = await newUser();
    const r = await call(remote.models, '/models', { browser: u });
    assert.equal(r.status, 503);
    assert.match(r.json.error, /inference service is unavailable/);
    assert.equal(r.headers.get('retry-after'), '10');
    assert.doesNotMatch(r.text, /127\.0\.0\.1|ECONNREFUSED/);
  });

  test('a refused key is a 503 too (the operator’s problem, not the user’s); the key is not echoed', async () => {
    const remote = characterRoutes({
      svc: h.svc,
      app: loadConfig({ INFERENCE_BASE_URL: h.base, INFERENCE_API_KEY: 'lgn_inf_wrongwrongwrongwrongwrongwrongwrongwron' }).app,
    });
    const u = await newUser();
    const r = await call(remote.characters, '/characters', { browser: u });
    assert.equal(r.status, 503);
  });
});

// Discovery endpoints (readable without a key) and characters (key needed).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Harness, get, scriptedEmbeddingModel, scriptedModel, startHarness } from '../support/harness.ts';

let h: Harness;
let key: string;
before(async () => {
  h = await startHarness();
  ({ key } = await h.newAccount());
});
after(() => h.close());

test('GET /models without a key: list envelope and model records', async () => {
  const r = await get(h, '/models');
  assert.equal(r.status, 200);
  assert.equal(r.json.object, 'list');
  assert.equal(r.json.type, 'all');
  const m = r.json.data.find((x: any) => x.id === 'scripted-model');
  assert.equal(m.object, 'model');
  assert.equal(m.type, 'text');
  assert.equal(m.context_length, 8192);
  assert.equal(m.model_spec.capabilities.supportsFunctionCalling, true);
  assert.equal(m.model_spec.capabilities.supportsWebSearch, false);
  assert.deepEqual(m.model_spec.pricing.input, { usd: 1, diem: 1 });
  assert.deepEqual(m.model_spec.traits, ['default', 'fastest']);
  const old = r.json.data.find((x: any) => x.id === 'old-model');
  assert.deepEqual(old.model_spec.deprecation, { autoRemap: false, date: '2027-01-31', removesAt: '2027-01-31', replacementModelId: 'scripted-model' });
  assert.ok(r.headers.get('cf-ray'));
});

test('GET /models: capability flags and token limits come from the catalogue; owned_by is a setting', async () => {
  const h2 = await startHarness({
    env: { LAGOON_MODELS_OWNED_BY: 'example.org' },
    models: (url) => [
      scriptedModel('effort-model', url, {
        capabilities: { reasoning: true, vision: true, reasoning_efforts: ['low', 'medium', 'high'], default_reasoning_effort: 'medium', quantization: 'fp8' },
      }),
      scriptedModel('one-image-model', url, { capabilities: { vision: true, video_input: true, max_images: 1 }, max_completion_tokens: undefined }),
      scriptedEmbeddingModel(url),
    ],
  });
  try {
    const data = (await get(h2, '/models')).json.data as any[];
    const spec = (id: string) => data.find((x) => x.id === id).model_spec;
    assert.ok(data.every((m) => m.owned_by === 'example.org'));
    assert.deepEqual(
      { ...spec('effort-model').capabilities },
      {
        optimizedForCode: false,
        quantization: 'fp8',
        supportsFunctionCalling: false,
        supportsAudioInput: false,
        supportsReasoning: true,
        supportsReasoningEffort: true,
        reasoningEffortOptions: ['low', 'medium', 'high'],
        defaultReasoningEffort: 'medium',
        supportsResponseSchema: false,
        supportsMultipleImages: true,
        maxImages: 10,
        maxVideos: 0,
        supportsVision: true,
        supportsVideoInput: false,
        supportsWebSearch: false,
        supportsLogProbs: false,
        supportsTeeAttestation: false,
        supportsE2EE: false,
        supportsXSearch: false,
      },
    );
    const one = spec('one-image-model');
    assert.equal(one.capabilities.supportsMultipleImages, false);
    assert.equal(one.capabilities.maxImages, 1);
    assert.equal(one.capabilities.maxVideos, 3);
    assert.equal(one.capabilities.supportsReasoningEffort, false);
    assert.deepEqual(one.capabilities.reasoningEffortOptions, []);
    assert.equal('defaultReasoningEffort' in one.capabilities, false);
    // No declared cap: the chat's own default (4096 within the 8192 context), a number either way.
    assert.equal(one.maxCompletionTokens, 4096);
    assert.equal(spec('effort-model').maxCompletionTokens, 1024);
    const embed = spec('embed-model');
    assert.equal(embed.maxCompletionTokens, 0);
    assert.equal(embed.availableContextTokens, 512);
  } finally {
    await h2.close();
  }
});

test('GET /models: owned_by defaults to lagoon, and to the public value with the venice wire name', async () => {
  assert.ok((await get(h, '/models')).json.data.every((m: any) => m.owned_by === 'lagoon'));
  const venice = await startHarness({ env: { LAGOON_WIRE_NAME: 'venice' } });
  try {
    assert.ok((await get(venice, '/models')).json.data.every((m: any) => m.owned_by === 'venice.ai'));
  } finally {
    await venice.close();
  }
});

test('GET /models?type filters, and an unknown type is a 400', async () => {
  assert.equal((await get(h, '/models?type=text')).json.data.length, 4);
  assert.deepEqual((await get(h, '/models?type=image')).json.data, []);
  const bad = await get(h, '/models?type=hologram');
  assert.equal(bad.status, 400);
  assert.match(bad.json.error, /hologram/);
  // A public type with no model here is an empty list.
  const music = await get(h, '/models?type=music');
  assert.deepEqual([music.status, music.json.type, music.json.data], [200, 'music', []]);
});

test('GET /models/traits, /models/compatibility_mapping and /image/styles', async () => {
  assert.deepEqual((await get(h, '/models/traits')).json, { object: 'list', type: 'text', data: { default: 'scripted-model', fastest: 'scripted-model' } });
  assert.deepEqual((await get(h, '/models/compatibility_mapping')).json, { object: 'list', type: 'text', data: { 'gpt-4o': 'scripted-model' } });
  assert.deepEqual((await get(h, '/image/styles')).json, { object: 'list', data: ['Anime', 'Photographic'] });
  // Readable without a key, but a key that is sent must be valid (the public document's 401).
  for (const path of ['/models/traits', '/models/compatibility_mapping', '/image/styles']) {
    const bad = await get(h, path, 'lgn_inf_not-a-key');
    assert.deepEqual([bad.status, bad.json.code], [401, 'AUTHENTICATION_FAILED'], path);
    assert.equal((await get(h, path, key)).status, 200, path);
  }
});

test('GET /characters needs a key; search, tags, limit and offset', async () => {
  assert.equal((await get(h, '/characters')).status, 401);
  const all = await get(h, '/characters', key);
  assert.equal(all.status, 200);
  assert.equal(all.json.object, 'list');
  assert.ok(all.json.data.length >= 4);
  const c = all.json.data.find((x: any) => x.slug === 'captain-reef');
  assert.equal(c.name, 'Captain Reef');
  // Absolute on the public origin, as the public records' photoUrl is.
  assert.equal(c.photoUrl, `${h.svc.config.wallet.publicOrigin}/characters/captain-reef.svg`);
  assert.deepEqual(
    (await get(h, '/characters?search=SAILOR', key)).json.data.map((x: any) => x.slug),
    ['captain-reef'],
  );
  assert.deepEqual(
    (await get(h, '/characters?tags=code', key)).json.data.map((x: any) => x.slug),
    ['code-reviewer'],
  );
  assert.deepEqual(
    (await get(h, '/characters?tags[]=education&tags[]=math', key)).json.data.map((x: any) => x.slug),
    ['socratic-tutor'],
  );
  assert.equal((await get(h, '/characters?limit=2', key)).json.data.length, 2);
  const page2 = (await get(h, '/characters?limit=2&offset=2', key)).json.data;
  assert.equal(page2.length, 2);
  assert.equal((await get(h, '/characters?limit=0', key)).status, 400);
  assert.equal((await get(h, '/characters?search=100%25_off', key)).json.data.length, 0);
});

test('GET /characters/{slug}', async () => {
  const r = await get(h, '/characters/socratic-tutor', key);
  assert.equal(r.json.object, 'character');
  assert.equal(r.json.data.slug, 'socratic-tutor');
  const missing = await get(h, '/characters/nobody', key);
  assert.equal(missing.status, 404);
  assert.equal(missing.json.code, 'CHARACTER_NOT_FOUND');
});

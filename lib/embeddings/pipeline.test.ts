import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { embeddingsRequestSchema } from './schema.ts';
import { parseCatalogue } from '../models/catalogue.ts';
import { embeddingModel, worstCaseTokens } from './pipeline.ts';

const engine = { kind: 'openai', baseUrl: 'http://127.0.0.1:1/v1' };
const pricing = { input_usd: 1, output_usd: 0, input_diem: 1, output_diem: 0 };
const catalogue = {
  ...parseCatalogue(
    {
      models: [
        { id: 'chat', name: 'Chat', type: 'text', tier: 'XS', pricing, context_length: 100, engine },
        {
          id: 'mrl',
          name: 'M',
          type: 'embedding',
          tier: 'XS',
          pricing,
          context_length: 100,
          traits: ['default'],
          embedding: { dimensions: 32, max_input_tokens: 10, custom_dimensions: true },
          engine,
        },
        { id: 'fixed', name: 'F', type: 'embedding', tier: 'XS', pricing, context_length: 100, embedding: { dimensions: 32 }, engine },
      ],
      compatibility_mapping: { 'text-embedding-3-small': 'mrl' },
    },
    '/',
  ),
  createdAt: 0,
};

describe('embeddings request validation', () => {
  test('defaults and the single-string form', () => {
    assert.deepEqual(embeddingsRequestSchema.parse({ model: 'm', input: 'hi' }), { model: 'm', input: ['hi'], encoding_format: 'float' });
    assert.deepEqual(embeddingsRequestSchema.parse({ model: 'm', input: ['a', 'b'], encoding_format: 'base64', dimensions: 3 }).input, ['a', 'b']);
  });

  test('token ids and non-text are refused with a message that says why', () => {
    for (const input of [[1, 2], [[1], [2, 3]], { text: 'x' }, 5, null]) {
      const r = embeddingsRequestSchema.safeParse({ model: 'm', input });
      assert.equal(r.success, false, JSON.stringify(input));
      assert.match(r.error!.issues[0].message, /input must be a string or an array of strings/);
    }
    assert.match(embeddingsRequestSchema.safeParse({ model: 'm', input: [1, 2] }).error!.issues[0].message, /token-id arrays are not supported/);
  });

  test('strict: unknown fields, dimensions < 1, a fractional dimensions', () => {
    for (const body of [
      { model: 'm', input: 'x', foo: 1 },
      { model: 'm', input: 'x', dimensions: 0 },
      { model: 'm', input: 'x', dimensions: 1.5 },
    ]) {
      assert.equal(embeddingsRequestSchema.safeParse(body).success, false, JSON.stringify(body));
    }
  });
});

describe('embedding model resolution', () => {
  test('by id, trait and compatibility alias; a text model is INVALID_MODEL', () => {
    assert.equal(embeddingModel({ catalogue }, { model: 'default' }).id, 'mrl');
    assert.equal(embeddingModel({ catalogue }, { model: 'text-embedding-3-small' }).id, 'mrl');
    assert.throws(() => embeddingModel({ catalogue }, { model: 'chat' }), { code: 'INVALID_MODEL' });
    assert.throws(() => embeddingModel({ catalogue }, { model: 'nope' }), { code: 'MODEL_NOT_FOUND' });
  });

  test('dimensions only on models that support them, and not above their width', () => {
    assert.equal(embeddingModel({ catalogue }, { model: 'mrl', dimensions: 32 }).id, 'mrl');
    assert.throws(() => embeddingModel({ catalogue }, { model: 'mrl', dimensions: 33 }), /at most 32/);
    assert.throws(() => embeddingModel({ catalogue }, { model: 'fixed', dimensions: 8 }), /does not support custom dimensions/);
  });

  test('the worst case bills a byte a token plus special tokens, capped by the model input limit', () => {
    const mrl = catalogue.byId.get('mrl')!;
    assert.equal(worstCaseTokens(mrl, ['ab']), 6);
    assert.equal(worstCaseTokens(mrl, ['a long text beyond the cap', 'é']), 10 + 6);
  });
});

// Model lookup by caller-supplied names: ids, traits and compatibility aliases live in Maps, arrays and own
// properties, so names that are Object.prototype members resolve only when the catalogue really has them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../api/errors.ts';
import { compatibilityMappingOf, parseCatalogue, resolveModel, traitsOf } from './catalogue.ts';

const PROTO_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

const model = (id: string, traits: string[], type = 'text') => ({
  id,
  name: id,
  type,
  tier: 'XS',
  pricing: { input_usd: 1, output_usd: 1, input_diem: 1, output_diem: 1 },
  context_length: 4096,
  ...(type === 'embedding' ? { embedding: { dimensions: 8, max_input_tokens: 512 } } : {}),
  traits,
  engine: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1' },
});

const notFound = (e: unknown) => e instanceof ApiError && e.code === 'MODEL_NOT_FOUND';

test('prototype-member names are unknown models unless the catalogue names them', () => {
  const plain = { ...parseCatalogue({ models: [model('a', ['default'])], compatibility_mapping: { 'gpt-4o': 'a' } }, '/'), createdAt: 0 };
  for (const name of PROTO_NAMES) {
    assert.throws(() => resolveModel(plain, name), notFound, name);
    assert.throws(() => resolveModel(plain, name, 'embedding'), notFound, name);
  }
  assert.equal(resolveModel(plain, 'gpt-4o').id, 'a');
});

test('traits and aliases that are prototype-member names resolve, and are listed as own properties', () => {
  const raw = JSON.parse(
    JSON.stringify({
      models: [model('a', ['default', 'toString']), model('b', ['constructor']), model('e', ['valueOf'], 'embedding')],
      compatibility_mapping: { hasOwnProperty: 'b', 'text-embedding-3-small': 'e' },
    }),
  );
  const cat = { ...parseCatalogue(raw, '/'), createdAt: 0 };
  assert.equal(resolveModel(cat, 'toString').id, 'a');
  assert.equal(resolveModel(cat, 'constructor').id, 'b');
  assert.equal(resolveModel(cat, 'hasOwnProperty').id, 'b');
  assert.equal(resolveModel(cat, 'valueOf', 'embedding').id, 'e');
  assert.throws(() => resolveModel(cat, 'valueOf'), notFound); // a trait of another type
  assert.throws(() => resolveModel(cat, '__proto__'), notFound);
  const traits = traitsOf(cat, 'text');
  assert.deepEqual(Object.keys(traits).sort(), ['constructor', 'default', 'toString']);
  assert.equal(traits.constructor, 'b');
  assert.equal(JSON.stringify(traits), '{"default":"a","toString":"a","constructor":"b"}');
  assert.equal(JSON.stringify(compatibilityMappingOf(cat, 'text')), '{"hasOwnProperty":"b"}');
});

test("a default reasoning effort must be one of the model's reasoning_efforts", () => {
  const withEffort = (capabilities: Record<string, unknown>) => ({ models: [{ ...model('a', []), capabilities }] });
  assert.throws(
    () => parseCatalogue(withEffort({ reasoning: true, reasoning_efforts: ['low'], default_reasoning_effort: 'high' }), '/'),
    /default_reasoning_effort/,
  );
  const ok = parseCatalogue(withEffort({ reasoning: true, reasoning_efforts: ['low', 'high'], default_reasoning_effort: 'high' }), '/');
  assert.deepEqual(ok.models[0].capabilities.reasoning_efforts, ['low', 'high']);
});

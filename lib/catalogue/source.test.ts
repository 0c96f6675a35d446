// The app's default chat model: the demo model gives way to a real one once one is served.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelEntry } from '../models/schema.ts';
import { appDefaultModel } from './source.ts';

const model = (id: string, o: { demo?: boolean; isDefault?: boolean } = {}) =>
  ({
    id,
    type: 'text',
    traits: o.isDefault ? ['default'] : [],
    engine: { kind: 'openai', baseUrl: 'http://127.0.0.1:1/v1' },
    ...(o.demo ? { demo: true } : {}),
  }) as unknown as ModelEntry;

test('the catalogue’s default, or its first model', () => {
  assert.equal(appDefaultModel([model('a'), model('b', { isDefault: true })])?.id, 'b');
  assert.equal(appDefaultModel([model('a'), model('b')])?.id, 'a');
  assert.equal(appDefaultModel([]), undefined);
});

test('a demo default gives way to the first real model; alone, it stays the default', () => {
  assert.equal(appDefaultModel([model('lagoon-demo', { demo: true, isDefault: true }), model('real')])?.id, 'real');
  assert.equal(appDefaultModel([model('lagoon-demo', { demo: true })])?.id, 'lagoon-demo');
  assert.equal(appDefaultModel([model('lagoon-demo', { demo: true }), model('other-demo', { demo: true })])?.id, 'lagoon-demo');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineMessage } from '../types.ts';
import { prefixKey } from './prefix.ts';

const sys: EngineMessage = { role: 'system', content: 'You are helpful.' };

test('later turns of a chat share the key of its first', () => {
  const first = [sys, { role: 'user', content: 'Tell me about otters.' }] as EngineMessage[];
  const later = [...first, { role: 'assistant', content: 'Otters are...' }, { role: 'user', content: 'And beavers?' }] as EngineMessage[];
  assert.equal(prefixKey({ messages: first }), prefixKey({ messages: later }));
  assert.notEqual(prefixKey({ messages: first }), prefixKey({ messages: [sys, { role: 'user', content: 'Tell me about seals.' }] as EngineMessage[] }));
});

test('only the first N characters count; prompt_cache_key wins; parts arrays are read', () => {
  const long = 'x'.repeat(5000);
  const a = [{ role: 'user', content: `${long}A` }] as EngineMessage[];
  const b = [{ role: 'user', content: `${long}B` }] as EngineMessage[];
  assert.equal(prefixKey({ messages: a }, 1000), prefixKey({ messages: b }, 1000));
  assert.notEqual(prefixKey({ messages: a }, 6000), prefixKey({ messages: b }, 6000));
  assert.equal(prefixKey({ messages: a, cacheKey: 'c1' }), 'k:c1');
  assert.equal(prefixKey({ messages: a }, 0), undefined);
  const parts = [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }] as EngineMessage[];
  const plain = [{ role: 'user', content: [{ type: 'text', text: 'hullo' }] }] as EngineMessage[];
  assert.notEqual(prefixKey({ messages: parts }), prefixKey({ messages: plain }));
});

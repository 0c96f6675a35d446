// The stream shaper: engine chunks → typed stream events (think split, citations, tool-call shift, pieces counted).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineChunk } from '../engines/text/types.ts';
import { StreamShaper } from './output.ts';

const chunk = (delta: EngineChunk['choices'][number]['delta'], finish: EngineChunk['choices'][number]['finish_reason'] = null, index = 0): EngineChunk => ({
  choices: [{ index, delta, finish_reason: finish }],
});

test('a <think> block becomes reasoning deltas; the finish is its own event', () => {
  const s = new StreamShaper(true);
  assert.deepEqual(s.shape(chunk({ role: 'assistant', content: '' })), [{ type: 'delta', index: 0, role: 'assistant' }]);
  assert.deepEqual(s.shape(chunk({ content: '<thi' })), []);
  assert.deepEqual(s.shape(chunk({ content: 'nk>why</think>Hi' })), [{ type: 'delta', index: 0, reasoning: 'why', content: 'Hi' }]);
  assert.deepEqual(s.shape(chunk({}, 'stop')), [{ type: 'finish', index: 0, reason: 'stop' }]);
  assert.equal(s.producedPieces, 2);
  const stripped = new StreamShaper(false);
  assert.deepEqual(stripped.shape(chunk({ reasoning_content: 'quiet' })), []);
});

test('tool calls move past the documents call; citations are rewritten; logprobs ride on the delta', () => {
  const s = new StreamShaper(true, 2, 1);
  assert.deepEqual(s.shape(chunk({ tool_calls: [{ index: 0, function: { name: 'f' } }] })), [
    { type: 'tool_calls', index: 0, calls: [{ index: 1, function: { name: 'f' } }] },
  ]);
  assert.deepEqual(s.shape(chunk({ content: 'See [1].' }, 'stop')), [
    { type: 'delta', index: 0, content: 'See ^1^.' },
    { type: 'finish', index: 0, reason: 'stop' },
  ]);
  const logprobs = { content: [{ token: 'a', logprob: -0.5 }] };
  assert.deepEqual(new StreamShaper(true).shape({ choices: [{ index: 1, delta: {}, finish_reason: null, logprobs }] }), [
    { type: 'delta', index: 1, logprobs },
  ]);
});

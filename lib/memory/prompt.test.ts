// The memory budget: the newest memories that fit go in, oldest first; a memory too long for what is left is
// skipped, not the end of the list; a budget too small for the header takes none.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MEMORY_HEADER, memoryPrompt, pickForPrompt, promptTokens } from './prompt.ts';

const m = (content: string, createdAt: number) => ({ content, createdAt });

test('everything fits: all of them, in the order they were saved', () => {
  const newestFirst = [m('likes tea', 3), m('lives in Oslo', 2), m('has a dog', 1)];
  const chosen = pickForPrompt(newestFirst, 1000);
  assert.deepEqual(
    chosen.map((x) => x.content),
    ['has a dog', 'lives in Oslo', 'likes tea'],
  );
  assert.equal(memoryPrompt(chosen), `${MEMORY_HEADER}\n- has a dog\n- lives in Oslo\n- likes tea`);
});

test('over budget: the newest that fit, a long one skipped for shorter older ones, and never over the budget', () => {
  const long = 'x'.repeat(900);
  const newestFirst = [m('newest fact', 4), m(long, 3), m('older fact', 2), m('oldest fact', 1)];
  const header = Math.ceil(Buffer.byteLength(MEMORY_HEADER) / 3);
  for (const budget of [header + 5, header + 12, header + 40, header + 300]) {
    const chosen = pickForPrompt(newestFirst, budget);
    assert.ok(promptTokens(chosen) <= budget, `${promptTokens(chosen)} tokens within ${budget}`);
    assert.ok(!chosen.some((x) => x.content === long));
  }
  assert.deepEqual(
    pickForPrompt(newestFirst, header + 40).map((x) => x.content),
    ['oldest fact', 'older fact', 'newest fact'],
  );
  assert.deepEqual(
    pickForPrompt(newestFirst, header + 7).map((x) => x.content),
    ['newest fact'],
  );
});

test('no budget or no memories: no message at all', () => {
  assert.deepEqual(pickForPrompt([m('a', 1)], 0), []);
  assert.deepEqual(pickForPrompt([m('a', 1)], 10), []);
  assert.equal(memoryPrompt([]), null);
  assert.equal(promptTokens([]), 0);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AppMessage } from '@/lib/wire.ts';
import { branchRows, buildTree, newestLeafUnder, siblingAt } from './message-tree.ts';

let clock = 0;
function msg(id: string, parentId: string | null, role: AppMessage['role'] = 'user'): AppMessage {
  return {
    id,
    parentId,
    role,
    conversationId: 'c',
    content: id,
    reasoning: null,
    attachments: [],
    citations: [],
    modelId: null,
    status: 'complete',
    usage: null,
    error: null,
    createdAt: ++clock,
  };
}

// u1 → a1 → u2 → a2 ; u1 → a1b (regenerated) ; a1 → u2b (edited) → a2b
const messages = [
  msg('u1', null),
  msg('a1', 'u1', 'assistant'),
  msg('u2', 'a1'),
  msg('a2', 'u2', 'assistant'),
  msg('a1b', 'u1', 'assistant'),
  msg('u2b', 'a1'),
  msg('a2b', 'u2b', 'assistant'),
];
const tree = buildTree(messages);
const ids = (leaf: string | null) => branchRows(tree, leaf).map((r) => r.message.id);

test('the default branch ends at the newest message', () => {
  assert.deepEqual(ids(null), ['u1', 'a1', 'u2b', 'a2b']);
});

test('a chosen leaf gives root → leaf, with sibling positions', () => {
  const rows = branchRows(tree, 'a2');
  assert.deepEqual(
    rows.map((r) => r.message.id),
    ['u1', 'a1', 'u2', 'a2'],
  );
  assert.deepEqual(
    rows.map((r) => [r.siblingIndex, r.siblingCount]),
    [
      [1, 1],
      [1, 2],
      [1, 2],
      [1, 1],
    ],
  );
});

test('a leaf that has grown is followed down its newest children', () => {
  assert.deepEqual(ids('a1b'), ['u1', 'a1b']);
  assert.deepEqual(ids('a1'), ['u1', 'a1', 'u2b', 'a2b']);
});

test('switching siblings lands on the newest message under the sibling', () => {
  assert.equal(siblingAt(tree, 'u2', 1), 'u2b');
  assert.equal(siblingAt(tree, 'u2', -1), null);
  assert.equal(siblingAt(tree, 'a1b', -1), 'a1');
  assert.equal(newestLeafUnder(tree, 'a1'), 'a2b');
  assert.equal(newestLeafUnder(tree, 'u2'), 'a2');
});

test('an unknown leaf falls back to the newest; an empty list gives no rows; system messages are not shown', () => {
  assert.deepEqual(ids('nope'), ['u1', 'a1', 'u2b', 'a2b']);
  assert.deepEqual(branchRows(buildTree([]), null), []);
  assert.deepEqual(branchRows(buildTree([msg('s', null, 'system')]), null), []);
});

// How fast is for the browser benchmark (npm run bench:browser); here: a long chain walks without deep recursion.
test('a 20,000-message chat builds and walks to its end', () => {
  const long: AppMessage[] = [];
  for (let i = 0; i < 20_000; i++) long.push(msg(`m${i}`, i ? `m${i - 1}` : null, i % 2 ? 'assistant' : 'user'));
  const rows = branchRows(buildTree(long), null);
  assert.equal(rows.length, 20_000);
  assert.equal(rows.at(-1)!.message.id, 'm19999');
});

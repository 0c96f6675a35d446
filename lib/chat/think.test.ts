import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitThink, ThinkSplitter } from './think.ts';

test('splits a whole think block from the answer', () => {
  assert.deepEqual(splitThink('<think>step one</think>\n\nThe answer.'), { reasoning: 'step one', content: 'The answer.' });
});

test('text without tags is all content, leading whitespace kept', () => {
  assert.deepEqual(splitThink('    indented code'), { reasoning: '', content: '    indented code' });
});

test('tags split across chunks are still recognised', () => {
  const s = new ThinkSplitter();
  const parts = ['<thi', 'nk>why ', 'not</th', 'ink>', '\n', 'Yes', ' <', 'b>'].map((c) => s.push(c));
  const end = s.flush();
  const reasoning = parts.map((p) => p.reasoning).join('') + end.reasoning;
  const content = parts.map((p) => p.content).join('') + end.content;
  assert.equal(reasoning, 'why not');
  assert.equal(content, 'Yes <b>');
});

test('a lone "<" that is not a tag is released at flush', () => {
  const s = new ThinkSplitter();
  assert.equal(s.push('a <').content, 'a ');
  assert.equal(s.flush().content, '<');
});

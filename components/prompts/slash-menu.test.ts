import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AppPrompt } from '../../lib/wire.ts';
import { filterPrompts, firstPlaceholder, MAX_SHOWN, slashQuery } from './slash-menu.ts';

const p = (title: string, content = 'x'): AppPrompt => ({ id: title, title, content, shared: false, createdAt: 0, updatedAt: 0 });

test('the menu opens only for a slash at the start of a one-line message', () => {
  assert.equal(slashQuery('/'), '');
  assert.equal(slashQuery('/sum'), 'sum');
  assert.equal(slashQuery('/two words'), 'two words');
  assert.equal(slashQuery('hello /sum'), null);
  assert.equal(slashQuery(' /sum'), null);
  assert.equal(slashQuery('/sum\nmore'), null);
  assert.equal(slashQuery(''), null);
});

test('titles starting with the query come first, then titles or texts containing it; at most MAX_SHOWN', () => {
  const all = [p('Translate', 'into French'), p('Summarise'), p('Bullet summary'), p('Sum up', 'short')];
  assert.deepEqual(
    filterPrompts(all, 'sum').map((x) => x.title),
    ['Summarise', 'Sum up', 'Bullet summary'],
  );
  assert.deepEqual(
    filterPrompts(all, 'FRENCH').map((x) => x.title),
    ['Translate'],
  );
  assert.deepEqual(filterPrompts(all, 'zzz'), []);
  const many = Array.from({ length: 20 }, (_, i) => p(`p${i}`));
  assert.equal(filterPrompts(many, '').length, MAX_SHOWN);
});

test('the first placeholder is found for selection', () => {
  assert.deepEqual(firstPlaceholder('Summarise {{text}} in {{n}} points'), { start: 10, end: 18 });
  assert.equal(firstPlaceholder('no placeholder {here}'), null);
});

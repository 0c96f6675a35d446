// Pure helpers: automatic titles, LIKE escaping and snippets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { autoTitle, escapeLike, snippet } from './text.ts';

test('autoTitle takes the first sentence or line without markdown', () => {
  assert.equal(autoTitle('How do I reverse a list in Python? I tried slicing.'), 'How do I reverse a list in Python?');
  assert.equal(autoTitle('# **Plan** a trip to _Lisbon_\nwith kids'), 'Plan a trip to Lisbon');
  assert.equal(autoTitle('Explain [closures](https://x.dev/c) in `JavaScript`. Thanks'), 'Explain closures in JavaScript');
  assert.equal(autoTitle('\n\n  - write a haiku about rain\n'), 'write a haiku about rain');
  assert.equal(autoTitle('> quoted question here'), 'quoted question here');
  assert.equal(autoTitle('```js\nconsole.log(1)\n```'), 'console.log(1)');
  assert.equal(autoTitle('```\nfoo()\n```\nWhy does this throw?'), 'Why does this throw?');
});

test('autoTitle cuts long text on a word boundary near 60 characters', () => {
  const t = autoTitle('Please summarise the following quarterly financial report for the board meeting tomorrow morning');
  assert.equal(t, 'Please summarise the following quarterly financial report…');
  assert.ok(Array.from(t).length <= 61);
  const noSpaces = autoTitle('x'.repeat(100));
  assert.equal(noSpaces, `${'x'.repeat(60)}…`);
});

test('autoTitle falls back to "New chat"', () => {
  assert.equal(autoTitle(''), 'New chat');
  assert.equal(autoTitle('   \n\t '), 'New chat');
  assert.equal(autoTitle('***\n---\n'), 'New chat');
  assert.equal(autoTitle('\u0000\u0007'), 'New chat');
  assert.equal(autoTitle(undefined as unknown as string), 'New chat');
});

test('escapeLike escapes the wildcards and the escape character', () => {
  assert.equal(escapeLike('50%_off\\now'), '50\\%\\_off\\\\now');
});

test('snippet shows the text around the first match', () => {
  const text = `${'alpha '.repeat(30)}the NEEDLE is here ${'omega '.repeat(30)}`;
  const s = snippet(text, 'needle');
  assert.match(s, /^….*the NEEDLE is here.*…$/);
  assert.ok(s.length < 150);
  assert.equal(snippet('short text', 'text'), 'short text');
});

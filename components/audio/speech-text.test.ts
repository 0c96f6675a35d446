import assert from 'node:assert/strict';
import { test } from 'node:test';
import { characterCount, speakableText, speechPieces } from './speech-text.ts';

test('speakableText: markdown is said as words, not symbols', () => {
  const md = [
    '# Getting started',
    '',
    'Use **bold** and _these_ words, see [the docs](https://example.com/a_(b)) and `npm test`.^1,2^',
    '',
    '- first item',
    '2. second item',
    '> quoted line',
    '',
    '```ts',
    'const x = 1 * 2;',
    '```',
    '',
    '| a | b |',
    '|---|---|',
    '| 1 | 2 |',
    '',
    '$$E = mc^2$$ Visit https://example.org now.',
    '***',
  ].join('\n');
  assert.equal(
    speakableText(md),
    [
      'Getting started.',
      'Use bold and these words, see the docs and npm test.',
      'first item.',
      'second item.',
      'quoted line.',
      '(code omitted.)',
      'a, b.',
      '1, 2.',
      '(formula) Visit a link now.',
    ].join('\n'),
  );
});

test('speakableText: an unclosed code fence (an answer cut off) and HTML say nothing of their insides', () => {
  assert.equal(speakableText('Here:\n```js\nalert(1)'), 'Here:\n(code omitted.)');
  assert.equal(speakableText('Hi <b>there</b> <img src=x onerror=alert(1)>'), 'Hi there.');
  assert.equal(speakableText('   \n\n'), '');
});

test('speechPieces: whole sentences up to the limit; a longer sentence is cut between words, a longer word where it must be', () => {
  assert.deepEqual(speechPieces('One two. Three four! Five six?', 20), ['One two. Three four!', 'Five six?']);
  assert.deepEqual(speechPieces('Short.', 100), ['Short.']);
  const long = 'alpha beta gamma delta epsilon zeta eta theta';
  for (const p of speechPieces(long, 12)) assert.ok(characterCount(p) <= 12, p);
  assert.equal(speechPieces(long, 12).join(' '), long);
  assert.deepEqual(speechPieces('x'.repeat(25), 10), ['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
  // Characters are code points, as the server counts them.
  assert.deepEqual(speechPieces('😀😀😀 😀😀', 3), ['😀😀😀', '😀😀']);
  assert.deepEqual(speechPieces('', 10), []);
});

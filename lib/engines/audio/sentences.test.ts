import assert from 'node:assert/strict';
import { test } from 'node:test';
import { characterCount, MAX_PIECE, splitSentences, toFliteText } from './sentences.ts';

test('sentences: split at sentence ends and paragraphs, keeping every word in order', () => {
  const text = 'Hello there. How are you?  Fine!\n\nA new paragraph "quoted." Then (aside.) More';
  const pieces = splitSentences(text);
  assert.deepEqual(pieces, ['Hello there.', 'How are you?', 'Fine!', 'A new paragraph "quoted."', 'Then (aside.)', 'More']);
  assert.equal(pieces.join(' ').replace(/\s+/g, ''), text.replace(/\s+/g, ''));
});

test('sentences: a sentence longer than a piece is cut at a clause, else a space, never beyond the limit', () => {
  const clause = `${'word '.repeat(50)}, ${'more '.repeat(60)}end.`;
  const pieces = splitSentences(clause, 300);
  assert.ok(pieces.length >= 2);
  assert.ok(pieces.every((p) => characterCount(p) <= 300));
  assert.ok(pieces[0].endsWith(','), 'cut after the comma');
  const noSpaces = 'x'.repeat(1000);
  const hard = splitSentences(noSpaces);
  assert.deepEqual(
    hard.map((p) => p.length),
    [MAX_PIECE, MAX_PIECE, 200],
  );
  assert.deepEqual(splitSentences('   \n  '), []);
});

test('characters are code points; flite text is folded to ASCII', () => {
  assert.equal(characterCount('naïve 😀'), 7);
  assert.equal(toFliteText('Café “naïve” — résumé…'), 'Cafe "naive" - resume...');
  assert.equal(toFliteText('日本語'), '');
});

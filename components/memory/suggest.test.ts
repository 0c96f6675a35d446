// What counts as asking to be remembered: explicit phrasing at the start, the fact cleaned up; questions, "remember
// to …" reminders and ordinary messages are not offered.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memorySuggestion } from './suggest.ts';

test('explicit requests offer the fact', () => {
  const cases: [string, string][] = [
    ['Remember that I prefer metric units', 'I prefer metric units'],
    ['please remember: my daughter is called Ada.', 'My daughter is called Ada'],
    ["Don't forget that I'm allergic to peanuts!", "I'm allergic to peanuts"],
    ['Can you remember that my timezone is CET, thanks', 'My timezone is CET'],
    ['Keep in mind I write TypeScript', 'I write TypeScript'],
    ['For future reference, I use a Mac', 'I use a Mac'],
    ['remember  that\n I live in   Oslo', 'I live in Oslo'],
  ];
  for (const [text, fact] of cases) assert.equal(memorySuggestion(text), fact, text);
});

test('no suggestion for questions, reminders or anything else', () => {
  for (const text of [
    'What do you remember about me?',
    'Remember what I said yesterday?',
    'Remember to buy milk',
    'I remember that film',
    'remember',
    'Remember that?',
    'Tell me about Oslo',
    '',
  ])
    assert.equal(memorySuggestion(text), null, text);
});

test('a very long fact is cut to what a memory may hold', () => {
  const s = memorySuggestion(`Remember that ${'a'.repeat(2000)}`);
  assert.equal(s?.length, 1000);
});

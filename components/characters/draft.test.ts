import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTranslator } from 'use-intl/core';
import en from '../i18n/messages/en.json' with { type: 'json' };
import { avatarProblem, type DraftProblem, draftOf, draftProblems, emptyDraft, inputOf, parseTags, parseTemperature } from './draft.ts';
import type { CharacterDetail } from './types.ts';

test('tags: comma-separated, trimmed, lower-case, without blanks or repeats', () => {
  assert.deepEqual(parseTags(' Pirate, Sea  ,pirate,, '), ['pirate', 'sea']);
  assert.deepEqual(parseTags(''), []);
});

test('temperature: blank is the model default, 0–2 is kept, anything else is invalid', () => {
  assert.equal(parseTemperature('  '), null);
  assert.equal(parseTemperature('0'), 0);
  assert.equal(parseTemperature('1.5'), 1.5);
  assert.equal(parseTemperature('2.1'), 'invalid');
  assert.equal(parseTemperature('-1'), 'invalid');
  assert.equal(parseTemperature('warm'), 'invalid');
});

// The problems are catalogue keys; in English they read as the editor shows them.
const say = createTranslator({ locale: 'en', messages: en, namespace: 'characterDraft' });
const words = (p: DraftProblem | undefined) => (p ? say(p.key, p.values) : '');

test('problems: a name is needed; too many or too long tags and a bad temperature are named', () => {
  assert.deepEqual(Object.keys(draftProblems(emptyDraft)), ['name']);
  const tags = Array.from({ length: 13 }, (_, i) => `t${i}`).join(',');
  const p = draftProblems({ ...emptyDraft, name: 'Ada', tags, temperature: '3' });
  assert.match(words(p.tags), /At most 12 tags/);
  assert.match(words(p.temperature), /0 to 2/);
  assert.match(words(draftProblems({ ...emptyDraft, name: 'Ada', tags: 'x'.repeat(33) }).tags), /at most 32/);
  assert.deepEqual(draftProblems({ ...emptyDraft, name: 'Ada' }), {});
});

test('the API fields from a draft: trimmed text, parsed tags, null for no model or default temperature', () => {
  const input = inputOf({ ...emptyDraft, name: ' Ada ', tags: 'Math, Poetry', instructions: ' Be Ada. ', temperature: '0.7', webEnabled: true });
  assert.deepEqual(input, {
    name: 'Ada',
    description: '',
    tags: ['math', 'poetry'],
    instructions: 'Be Ada.',
    firstMessage: '',
    exampleDialogue: '',
    modelId: null,
    temperature: 0.7,
    webEnabled: true,
  });
});

test('a saved character becomes a draft that gives the same fields back', () => {
  const c = {
    slug: 'ada-x1',
    name: 'Ada',
    description: 'Counts',
    tags: ['math'],
    avatarUrl: null,
    photoUrl: null,
    modelId: 'm1',
    visibility: 'private',
    adult: false,
    owner: { name: 'me' },
    stats: { averageRating: null, ratingCount: 0, chats: 0 },
    createdAt: 1,
    updatedAt: 1,
    instructions: 'Be Ada.',
    firstMessage: 'Hello.',
    exampleDialogue: '',
    temperature: 1,
    webEnabled: false,
    isOwner: true,
    myReview: null,
  } satisfies CharacterDetail;
  const back = inputOf(draftOf(c));
  assert.deepEqual(back, {
    name: 'Ada',
    description: 'Counts',
    tags: ['math'],
    instructions: 'Be Ada.',
    firstMessage: 'Hello.',
    exampleDialogue: '',
    modelId: 'm1',
    temperature: 1,
    webEnabled: false,
  });
});

test('avatars: images of the four kinds up to 5 MB', () => {
  assert.equal(avatarProblem({ type: 'image/webp', size: 1000 }), null);
  assert.match(say(avatarProblem({ type: 'image/svg+xml', size: 1000 }) ?? 'nameMissing'), /PNG, JPEG, WebP or GIF/);
  assert.match(say(avatarProblem({ type: 'image/png', size: 5 * 1024 * 1024 + 1 }) ?? 'nameMissing'), /larger than 5 MB/);
});

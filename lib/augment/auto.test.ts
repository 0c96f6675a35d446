import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { needsSearch } from './auto.ts';

const search = [
  'What is the weather in Paris today?',
  'latest news about SpaceX',
  'Who won the Champions League final?',
  'Bitcoin price right now',
  'What happened in the 2024 US election?',
  'Is Blockbuster still open anywhere?',
  'Who is the CEO of OpenAI?',
  'Can you search for reviews of the Framework laptop?',
  'Please look up the opening hours of the Louvre',
  'When is the release date of GTA 6?',
  'Tell me about Anthropic',
  'What is Lagoon AI?',
  'Hi, what is the score of the Lakers game tonight?',
  'Summarize the latest news on the Mars mission',
  'What are the current mortgage rates?',
  'Apple stock this week',
  'Any upcoming concerts in Berlin next month?',
  'Best laptops of 2025',
];

const noSearch = [
  'hi',
  'Hello!',
  'Hey, how are you today?',
  'Thanks a lot!',
  'news?',
  'Write a poem about the ocean today',
  'Write a Python function that reverses a string',
  'Fix this code:\n```js\nconst x = [1, 2];\n```',
  'Solve 2x + 3 = 11',
  'What is 12 * 7?',
  'Translate "good morning, how did you sleep last night" into French',
  'Summarize this text: The lagoon is a shallow body of water separated from the sea by a reef.',
  'What is a lagoon?',
  'Explain how photosynthesis works',
  'Imagine you are a pirate and describe your ship',
  'Read https://example.com/article and tell me the latest',
  'Why is the sky blue?',
  'Give me a recipe for pancakes',
  'How do I debug a segfault in C?',
  'What happened in 1969 on the moon? Just kidding, write a story about it',
];

describe('needsSearch', () => {
  for (const text of search) it(`searches: ${JSON.stringify(text)}`, () => assert.equal(needsSearch(text), true));
  for (const text of noSearch) it(`does not search: ${JSON.stringify(text)}`, () => assert.equal(needsSearch(text), false));

  it('ignores years before 2024 and sentence-initial capitals', () => {
    assert.equal(needsSearch('Describe the art style of 1920s posters'), false);
    assert.equal(needsSearch('The weekly meal plan for a vegetarian'), false);
    assert.equal(needsSearch('Trends in electric cars for 2026'), true);
  });
});

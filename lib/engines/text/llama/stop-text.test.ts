import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StopText } from './stop-text.ts';

test('text without stop strings passes straight through', () => {
  const s = new StopText([]);
  assert.equal(s.push('Hello'), 'Hello');
  assert.equal(s.push(' world'), ' world');
  assert.equal(s.flush(), '');
});

test('a possible stop prefix is held until it is resolved', () => {
  const s = new StopText(['END']);
  assert.equal(s.push('The E'), 'The ');
  assert.equal(s.push('N'), '');
  assert.equal(s.push('D and more'), '');
  assert.equal(s.stopped, true);
  assert.equal(s.push('ignored'), '');
  assert.equal(s.flush(), '');
});

test('a held prefix that turns out not to be a stop is released', () => {
  const s = new StopText(['END']);
  assert.equal(s.push('a bEN'), 'a b');
  assert.equal(s.push('ch'), 'ENch');
  assert.equal(s.push(' E'), ' ');
  assert.equal(s.flush(), 'E');
});

test('the earliest of several stops wins, and empty stops are ignored', () => {
  const s = new StopText(['', 'cat', 'a c']);
  assert.equal(s.push('the fox saw a cat'), 'the fox saw ');
  assert.equal(s.stopped, true);
});

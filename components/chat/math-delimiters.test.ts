import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normaliseMathDelimiters as m } from './math-delimiters.ts';

test('inline TeX becomes $$…$$', () => {
  assert.equal(m("Euler's identity: $e^{i\\pi}+1=0$."), "Euler's identity: $$e^{i\\pi}+1=0$$.");
  assert.equal(m('so \\(a^2 + b^2\\) holds'), 'so $$a^2 + b^2$$ holds');
  assert.equal(m('\\[ \\int_0^1 x\\,dx \\]'), '$$ \\int_0^1 x\\,dx $$');
});

test('prices, escaped dollars and code stay as written', () => {
  for (const s of ['It costs $5 and $10.', 'between $5-$10', 'a \\$x$ b', '`$x$` and ``$y$``', 'pay $ 5 or $6', 'US$5, US$6']) {
    assert.equal(m(s), s, s);
  }
  const fenced = '```\n$x$\n```\n$y$';
  assert.equal(m(fenced), '```\n$x$\n```\n$$y$$');
});

test('existing $$ spans and unfinished math are left alone', () => {
  assert.equal(m('$$x$$ and $$\ny\n$$'), '$$x$$ and $$\ny\n$$');
  assert.equal(m('streaming $x^2 + '), 'streaming $x^2 + ');
});

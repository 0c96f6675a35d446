// The highlighter's immediate answer always shows exactly the code asked for: earlier tokens for the lines an
// earlier version already had complete, plain text for the rest; never the stale text of an earlier version.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HighlightResult } from 'streamdown';
import { provisionalResult } from './worker-code-plugin.ts';

const textOf = (r: HighlightResult) => r.tokens.map((line) => line.map((t) => t.content).join('')).join('\n');
const coloured = (code: string): HighlightResult => ({
  bg: '#fff',
  fg: '#000',
  tokens: code.split('\n').map((line) => line.split(/(?<= )/).map((content) => ({ content, color: '#c00' }))),
});

test('a finished block extends the streamed version: complete lines keep their colours, the rest is plain and whole', () => {
  const streamed = 'const';
  const finished = 'const answer: number = 42;\nconsole.log(answer);';
  const r = provisionalResult(finished, { code: streamed, result: coloured(streamed) });
  assert.equal(textOf(r), finished);
  assert.ok(
    r.tokens.flat().every((t) => t.color === 'inherit'),
    'the cut last line is redone plain',
  );

  const twoLines = 'const a = 1;\nconst b';
  const r2 = provisionalResult(`${twoLines} = 2;\n`, { code: twoLines, result: coloured(twoLines) });
  assert.equal(textOf(r2), 'const a = 1;\nconst b = 2;\n');
  assert.equal(r2.tokens[0][0].color, '#c00', 'the complete first line keeps its tokens');
  assert.equal(r2.bg, '#fff');
  assert.equal(r2.tokens[1][0].color, 'inherit');
});

test('without an earlier version it extends, the code is shown plain', () => {
  const r = provisionalResult('print(1)\nprint(2)', { code: 'other', result: coloured('other') });
  assert.equal(textOf(r), 'print(1)\nprint(2)');
  assert.equal(textOf(provisionalResult('x')), 'x');
});

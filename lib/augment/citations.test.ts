import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CitationRewriter, normaliseCitations, sourcesBlock } from './citations.ts';

describe('sourcesBlock', () => {
  const results = [
    { title: 'Lagoon\nbasics', url: 'https://a.example/lagoon', content: 'A lagoon is shallow.', date: '2024-05-01' },
    { title: 'Reef', url: 'https://b.example/reef', content: 'Reefs shelter lagoons.' },
  ];

  it('numbers the sources with title, URL, content and date, and asks for caret citations', () => {
    const block = sourcesBlock(results, { citations: true });
    assert.ok(block.includes('[1] Lagoon basics — https://a.example/lagoon\nA lagoon is shallow.\n(2024-05-01)'), block);
    assert.ok(block.includes('[2] Reef — https://b.example/reef\nReefs shelter lagoons.'), block);
    assert.ok(!block.includes('[3]'));
    assert.match(block, /\^1\^ for one source, \^1,2\^ for several/);
    assert.match(block, /Never cite with brackets/);
    assert.match(block, /untrusted web content/);
  });

  it('asks for no citation markers when citations are off, and is empty without results', () => {
    const block = sourcesBlock(results, { citations: false });
    assert.ok(!block.includes('^1^'));
    assert.match(block, /Do not add citation markers/);
    assert.equal(sourcesBlock([], { citations: true }), '');
  });
});

/** [input, expected output] with no maxSource. */
const rewrites: [string, string][] = [
  ['Paris is the capital [1].', 'Paris is the capital ^1^.'],
  ['Paris is the capital[1].', 'Paris is the capital^1^.'],
  ['Both agree [1, 2].', 'Both agree ^1,2^.'],
  ['Both agree [1,2,3].', 'Both agree ^1,2,3^.'],
  ['Both agree [1][2].', 'Both agree ^1,2^.'],
  ['Both agree [1] [2].', 'Both agree ^1,2^.'],
  ['Repeated [2][2][1].', 'Repeated ^2,1^.'],
  ['A footnote[^3] here.', 'A footnote^3^ here.'],
  ['A sup<sup>1</sup> here.', 'A sup^1^ here.'],
  ['A sup <SUP>1, 2</SUP> here.', 'A sup ^1,2^ here.'],
  ['A sup<sup>[4]</sup> here.', 'A sup^4^ here.'],
  ['A sup<sup>[1][2]</sup> and <sup>[3], [4]</sup>.', 'A sup^1,2^ and ^3,4^.'],
  ['Lenticular【1】 and 【2†source】.', 'Lenticular^1^ and ^2^.'],
  ['Mixed [1]<sup>2</sup>【3】(4).', 'Mixed ^1,2,3,4^.'],
  ['Paris is the capital (1).', 'Paris is the capital ^1^.'],
  ['Paris is the capital (1, 2).', 'Paris is the capital ^1,2^.'],
  ['Paris is the capital (1)(2), and large.', 'Paris is the capital ^1,2^, and large.'],
  ['Paris is the capital.(3)', 'Paris is the capital.^3^'],
  ['Ends the paragraph (2)\nNext one.', 'Ends the paragraph ^2^\nNext one.'],
  ['Ends the text (2)', 'Ends the text ^2^'],
  ['Cited "quote" (1).', 'Cited "quote" ^1^.'],
  ['Already ^1^ and ^1,2^ done.', 'Already ^1^ and ^1,2^ done.'],
  ['Already ^1^[2] next to each other.', 'Already ^1^^2^ next to each other.'],
];

/** Text the rewrite must leave exactly as it is. */
const untouched = [
  'Click [1](https://example.com) to read.',
  'See [the docs][1] for more.',
  '[1]: https://example.com/reference',
  '[^1]: The footnote text.',
  '[1] Smith, J. (2020). A list entry.',
  '- [2] a bulleted source\n> [3] quoted',
  '1. [4] numbered',
  'An image ![1] and escaped \\[1] stay.',
  'Use `x[1]` and ``a[2]`` in code.',
  '```python\nvalues[1] = f(2)\nprint(values[1])  # [1]\n```',
  '~~~\nstill code [1]\n~~~',
  'First, do step (1) and then step (2).',
  'Solve equation (3) first. See Eq. (4).',
  'The value f(1) is 3 and max(2) is 2.',
  '(1) mix\n(2) bake',
  'Paris (1) is large.',
  'Both (1) and (2).',
  'In the year 2024 [2024] (2023) [123] [0] [01].',
  'An unclosed [1 bracket and (2 paren.',
  'Lists like [1, x] and [a] stay.',
  '<sup>note</sup> and <b>1</b>.',
];

describe('normaliseCitations', () => {
  for (const [input, expected] of rewrites) {
    it(`rewrites ${JSON.stringify(input)}`, () => assert.equal(normaliseCitations(input), expected));
  }
  for (const text of untouched) {
    it(`leaves ${JSON.stringify(text)} alone`, () => assert.equal(normaliseCitations(text), text));
  }

  it('rewrites after a closed code block and code span but not inside them', () => {
    const text = 'Intro [1].\n```\nx = a[1]\n```\nAfter `b[2]` the text [2].\n  ````md\n```\n[3]\n````\nEnd (3).';
    const expected = 'Intro ^1^.\n```\nx = a[1]\n```\nAfter `b[2]` the text ^2^.\n  ````md\n```\n[3]\n````\nEnd ^3^.';
    assert.equal(normaliseCitations(text), expected);
  });

  it('lets an unclosed backtick end at the line end', () => {
    assert.equal(normaliseCitations('A stray ` tick [1]\nnext line [2].'), 'A stray ` tick [1]\nnext line ^2^.');
  });

  it('treats numbers above maxSource as not citations', () => {
    assert.equal(normaliseCitations('Known [1][9] and (7). Also <sup>2</sup>.', 5), 'Known ^1^[9] and (7). Also ^2^.');
    assert.equal(normaliseCitations('Known [1, 6].', 5), 'Known [1, 6].');
    assert.equal(normaliseCitations('Known [5].', 5), 'Known ^5^.');
  });

  it('rewrites a realistic answer', () => {
    const answer =
      'The Venice Lagoon covers about 550 km² [1][2]. Its tides are measured daily<sup>3</sup>, and the MOSE ' +
      'barrier was first raised in 2020 (2).\n\n| Year | Floods |\n|---|---|\n| 2019 | 3 |\n\nSee the [official site](https://example.com).';
    const expected =
      'The Venice Lagoon covers about 550 km² ^1,2^. Its tides are measured daily^3^, and the MOSE ' +
      'barrier was first raised in 2020 ^2^.\n\n| Year | Floods |\n|---|---|\n| 2019 | 3 |\n\nSee the [official site](https://example.com).';
    assert.equal(normaliseCitations(answer, 3), expected);
  });
});

const samples = [
  ...rewrites.map(([input]) => input),
  ...untouched,
  'Intro [1].\n```js\nconst a = b[1]; // [2]\n```\nAfter `c[3]` text [3] [4] and (5).\n~~~~\n[6]\n~~~\n~~~~~\nEnd【6†x】<sup>[7]</sup>',
  'Line one[1][2]\r\nLine two (3).\r\n```\r\ncode [4]\r\n```\r\n- [5] list\n  done [^6] and [text](http://x) [7](y) ![8] [a][9].',
  '   ```\n[1]\n   ```\nindented fence closed [2] ``` not a fence [3] ```\n``x`` y [4]',
];

/** Deterministic pseudo-random numbers (mulberry32), so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function streamed(chunks: string[], maxSource?: number): string {
  const rewriter = new CitationRewriter(maxSource);
  return chunks.map((c) => rewriter.push(c)).join('') + rewriter.flush();
}

describe('CitationRewriter', () => {
  it('matches normaliseCitations for 200 random splits of each sample', () => {
    const all = samples.join('\n\n');
    for (const [index, text] of [...samples, all].entries()) {
      const rand = random(index + 1);
      for (const maxSource of [undefined, 4]) {
        const whole = normaliseCitations(text, maxSource);
        for (let trial = 0; trial < 200; trial++) {
          const chunks: string[] = [];
          for (let i = 0; i < text.length; ) {
            // Mostly short chunks, like model tokens, with an empty one now and then.
            const size = Math.floor(rand() * (rand() < 0.2 ? 12 : 4));
            chunks.push(text.slice(i, i + size));
            i += size;
          }
          assert.equal(streamed(chunks, maxSource), whole, `sample ${index}, trial ${trial}: ${JSON.stringify(chunks)}`);
        }
      }
    }
  });

  it('matches normaliseCitations character by character and at every two-part split', () => {
    for (const text of samples) {
      const whole = normaliseCitations(text);
      assert.equal(streamed([...text]), whole);
      for (let i = 0; i <= text.length; i++) assert.equal(streamed([text.slice(0, i), text.slice(i)]), whole, `split at ${i}`);
    }
  });

  it('holds back only what may still become a citation', () => {
    const rewriter = new CitationRewriter();
    assert.equal(rewriter.push('The capital '), 'The capital ');
    assert.equal(rewriter.push('of France [1'), 'of France ');
    assert.equal(rewriter.push(']'), '');
    assert.equal(rewriter.push('[2'), '');
    assert.equal(rewriter.push('] is Paris'), '^1,2^ is Paris');
    assert.equal(rewriter.push(' (2'), ' ');
    assert.equal(rewriter.push(') of'), '(2) of');
    assert.equal(rewriter.push(' (see'), ' (see');
    assert.equal(rewriter.flush(), '');
  });

  it('flushes a held-back partial marker unchanged', () => {
    const rewriter = new CitationRewriter();
    assert.equal(rewriter.push('Unfinished <sup>1'), 'Unfinished ');
    assert.equal(rewriter.flush(), '<sup>1');
  });
});

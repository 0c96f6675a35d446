// Cards, PNG text chunks, slugs and macros without a server: iTXt (plain and deflated) and tEXt read back; CRCs are
// checked; a deflate bomb is refused; card fields are cut to our limits and everything unknown is dropped; an export
// parses back to the same draft.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import type { Character } from './characters.ts';
import { cardOf, draftFromCard, draftFromPng } from './cards.ts';
import { CHARACTER_LIMITS as L } from './limits.ts';
import { readTextChunks, withTextChunks } from './png.ts';
import { slugFor, slugProblem } from './slug.ts';
import { fillMacros, personaPrompt } from './snapshot.ts';

const tinyPng = () =>
  sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .png()
    .toBuffer();

/** An iTXt chunk placed before IEND, its text deflated when `compress`. */
function withITxt(png: Buffer, keyword: string, text: string, compress: boolean): Buffer {
  const body = compress ? zlib.deflateSync(Buffer.from(text, 'utf8')) : Buffer.from(text, 'utf8');
  const data = Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0, compress ? 1 : 0, 0, 0, 0]), body]);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write('iTXt', 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0);
  const iend = png.length - 12;
  return Buffer.concat([png.subarray(0, iend), head, data, crc, png.subarray(iend)]);
}

const card = (data: Record<string, unknown>) => ({ spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'X', ...data } });

describe('PNG text chunks', () => {
  test('tEXt written and read back; a rewrite replaces the chunk instead of adding one', async () => {
    const png = withTextChunks(await tinyPng(), [{ keyword: 'chara', text: 'first' }]);
    const again = withTextChunks(png, [{ keyword: 'chara', text: 'second' }]);
    assert.equal(readTextChunks(again, ['chara'], 1000).get('chara'), 'second');
    assert.equal(again.toString('latin1').split('tEXtchara').length, 2, 'one chara chunk');
    assert.equal((await sharp(again).metadata()).width, 8, 'still a valid PNG');
  });

  test('iTXt, plain and deflated (UTF-8); a deflate bomb past the cap is refused', async () => {
    const text = Buffer.from(JSON.stringify(card({ name: 'Ünïcode ✓' }))).toString('base64');
    for (const compress of [false, true]) {
      const png = withITxt(await tinyPng(), 'ccv3', text, compress);
      assert.equal(draftFromPng(png).draft.name, 'Ünïcode ✓');
    }
    const bomb = withITxt(await tinyPng(), 'chara', 'A'.repeat(5_000_000), true);
    assert.throws(() => readTextChunks(bomb, ['chara'], 1_000_000), /does not inflate/);
  });

  test('a wrong CRC, a chunk running past the end and a missing IEND are malformed', async () => {
    const png = withTextChunks(await tinyPng(), [{ keyword: 'chara', text: 'abc' }]);
    const badCrc = Buffer.from(png);
    badCrc[png.length - 13] ^= 1;
    assert.throws(() => readTextChunks(badCrc, ['chara'], 1000), /checksum/);
    const long = Buffer.from(png);
    long.writeUInt32BE(0x7fffffff, 8);
    assert.throws(() => readTextChunks(long, ['chara'], 1000), /runs past the end/);
    assert.throws(() => readTextChunks(png.subarray(0, png.length - 12), ['chara'], 1000), /no IEND/);
  });
});

describe('cards', () => {
  test('fields are cut to our limits, tags cleaned, unknown fields and foreign extensions dropped', () => {
    const { draft, version } = draftFromCard({
      spec: 'chara_card_v3',
      spec_version: '3.0',
      data: {
        name: `  ${'N'.repeat(200)}  `,
        description: 'D'.repeat(30_000),
        first_mes: 'F'.repeat(5_000),
        mes_example: 'E'.repeat(9_000),
        creator_notes: 'C'.repeat(3_000),
        tags: ['#One', 'one', 'T'.repeat(40), ...Array.from({ length: 20 }, (_, i) => `t${i}`)],
        extensions: { lagoon: { modelId: 'm', temperature: 9, webEnabled: 'yes' }, depth_prompt: { prompt: 'x' } },
        assets: [{ uri: 'https://example.com/a.png' }],
      },
    });
    assert.equal(version, 'v3');
    assert.equal(draft.name.length, L.name);
    assert.equal(draft.instructions.length, L.instructions);
    assert.equal(draft.firstMessage.length, L.firstMessage);
    assert.equal(draft.exampleDialogue.length, L.exampleDialogue);
    assert.equal(draft.description.length, L.description);
    assert.equal(draft.tags.length, L.tags);
    assert.equal(draft.tags[0], 'one');
    assert.ok(draft.tags.every((t) => t.length <= L.tag));
    assert.deepEqual([draft.modelId, draft.temperature, draft.webEnabled], ['m', null, false], 'bad extension values are ignored, good ones kept');
    assert.doesNotMatch(JSON.stringify(draft), /example\.com|depth_prompt/);
  });

  test('an export parses back to the same draft (V2 and V3)', () => {
    const c = {
      id: 'i',
      slug: 's',
      name: 'Echo',
      description: 'Desc',
      systemPrompt: 'Be {{char}}.',
      firstMessage: 'Hi',
      exampleDialogue: 'ex',
      modelId: 'plain-model',
      temperature: 0.3,
      tags: ['a', 'b'],
      photoUrl: null,
      avatarType: null,
      adult: false,
      featured: false,
      webEnabled: true,
      visibility: 'private',
      ownerUserId: 'u',
      ownerName: 'Me',
      stats: { chats: 0, ratingCount: 0, ratingSum: 0 },
      createdAt: 1,
      updatedAt: 2,
    } satisfies Character;
    for (const v of ['v2', 'v3'] as const) {
      const { draft } = draftFromCard(JSON.parse(JSON.stringify(cardOf(c, v))));
      assert.deepEqual(draft, {
        name: 'Echo',
        description: 'Desc',
        tags: ['a', 'b'],
        instructions: 'Be {{char}}.',
        firstMessage: 'Hi',
        exampleDialogue: 'ex',
        modelId: 'plain-model',
        temperature: 0.3,
        webEnabled: true,
        adult: false,
      });
    }
  });

  test('what is not a V2/V3 card says why', () => {
    assert.throws(() => draftFromCard(null), /JSON object/);
    assert.throws(() => draftFromCard({ name: 'v1' }), /V1 card/);
    assert.throws(() => draftFromCard({ spec: 'chara_card_v2', data: { name: 7 } }), /data\.name/);
    assert.throws(() => draftFromCard(card({ mes_example: ['x'] })), /data\.mes_example/);
  });
});

describe('slugs and macros', () => {
  test('slugs come from the name with a random suffix; chosen slugs are checked', () => {
    assert.match(slugFor('Ada the Archivist!'), /^ada-the-archivist-[a-z2-9]{6}$/);
    assert.match(slugFor('Élodie'), /^elodie-[a-z2-9]{6}$/);
    assert.match(slugFor('日本語'), /^character-[a-z2-9]{6}$/);
    assert.notEqual(slugFor('Same'), slugFor('Same'));
    assert.equal(slugProblem('good-slug-1'), null);
    for (const bad of ['ab', 'Bad', '-lead', 'trail-', 'two--hyphens', 'sp ace', 'x'.repeat(65)]) assert.ok(slugProblem(bad), bad);
  });

  test('{{char}} and {{user}} are filled; the persona adds its example dialogue', () => {
    assert.equal(fillMacros('{{char}} meets {{ USER }}', { char: 'Ada', user: 'Sam' }), 'Ada meets Sam');
    assert.equal(personaPrompt({ name: 'Ada', instructions: 'I am {{char}}', exampleDialogue: '' }, ''), 'I am Ada');
    assert.match(personaPrompt({ name: 'Ada', instructions: 'x', exampleDialogue: '{{user}}: hi' }, 'Sam'), /Example dialogue[^\n]*\nSam: hi$/);
  });
});

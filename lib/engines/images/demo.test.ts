// The demo engines do what their descriptions say: the generator is deterministic in prompt and seed and takes its
// palette from the prompt; the editor applies the edits it names; the background remover cuts out flat backgrounds
// and refuses others.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import { EngineError } from '../text/types.ts';
import { COLOURS, paletteOf } from './demo-art.ts';
import { createDemoBackgroundRemover } from './demo-background.ts';
import { createDemoEditor, editsOf } from './demo-edit.ts';
import { createDemoGenerator, renderDemo } from './demo-generate.ts';

const job = { requestId: 'r', signal: new AbortController().signal, safeMode: true };
const base = { prompt: 'a lagoon at sunset', seed: 7, width: 256, height: 192, steps: 4 };

/** Mean absolute difference per channel value between two raw pixel buffers of one size. */
const meanDiff = (a: Buffer, b: Buffer) => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += Math.abs(a[i] - b[i]);
  return d / a.length;
};

/** A test picture: a red disc on a flat background (or on a gradient, which is not flat). */
async function disc(size: number, background: 'flat' | 'gradient'): Promise<Buffer> {
  const bg =
    background === 'flat'
      ? `<rect width="${size}" height="${size}" fill="#f2f2f2"/>`
      : `<defs><linearGradient id="g"><stop offset="0" stop-color="#000"/><stop offset="1" stop-color="#fff"/></linearGradient></defs><rect width="${size}" height="${size}" fill="url(#g)"/>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">${bg}<circle cx="${size / 2}" cy="${size / 2}" r="${size / 4}" fill="#d01010"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

describe('the demo generator', () => {
  test('the same prompt and seed give the same pixels; another seed, another picture; the asked size', async () => {
    const a = await renderDemo(base);
    const again = await renderDemo(base);
    const other = await renderDemo({ ...base, seed: 8 });
    assert.deepEqual(a.raw, { width: 256, height: 192, channels: 3 });
    assert.ok(a.bytes.equals(again.bytes), 'deterministic');
    assert.ok(meanDiff(a.bytes, other.bytes) > 5, 'a new seed is a new composition');
    const otherPrompt = await renderDemo({ ...base, prompt: 'a forest in winter' });
    assert.ok(meanDiff(a.bytes, otherPrompt.bytes) > 5);
  });

  test('colour words choose the palette, the negative prompt removes colours, and a style changes the finish', async () => {
    assert.deepEqual(paletteOf('red and blue stripes').slice(0, 2), [COLOURS.red, COLOURS.blue]);
    assert.ok(!paletteOf('red and blue', 'blue').includes(COLOURS.blue));
    assert.equal(paletteOf('anything at all').length, 4, 'topped up from the prompt');
    // A red prompt is redder than a blue one, on average over the picture.
    const mean = async (prompt: string) => {
      const img = await renderDemo({ ...base, prompt });
      return (await sharp(img.bytes, { raw: img.raw! }).stats()).channels.map((c) => c.mean);
    };
    const [rr, , rb] = await mean('red crimson red');
    const [br, , bb] = await mean('blue navy azure');
    assert.ok(rr - rb > br - bb + 40, `red ${rr}/${rb} vs blue ${br}/${bb}`);
    const plain = await renderDemo(base);
    const pixel = await renderDemo({ ...base, stylePreset: 'Pixel Art' });
    assert.ok(meanDiff(plain.bytes, pixel.bytes) > 3);
  });

  test('variants have consecutive seeds; an aborted job stops', async () => {
    const engine = createDemoGenerator();
    const images = await engine.generate!({ ...job, ...base, variants: 3 });
    assert.equal(images.length, 3);
    assert.ok(images[1].bytes.equals((await renderDemo({ ...base, seed: 8 })).bytes));
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(engine.generate!({ ...job, ...base, variants: 2, signal: ac.signal }), EngineError);
  });
});

describe('the demo editor', () => {
  test('names the edits it understands, and applies greyscale, rotation and a tint for real', async () => {
    assert.deepEqual(editsOf('Make it black and white and blurry').names, ['greyscale', 'blur']);
    assert.deepEqual(editsOf('make it blue').names, ['tint blue']);
    assert.deepEqual(editsOf('something unknown').names, []);
    const editor = createDemoEditor();
    const input = await disc(256, 'flat');
    const grey = await editor.edit!({ ...job, prompt: 'greyscale please', images: [input], width: 256, height: 256, seed: 1 });
    const g = grey.bytes;
    for (let p = 0; p < g.length; p += 4 * 97) assert.ok(g[p] === g[p + 1] && g[p + 1] === g[p + 2], 'every pixel grey');
    // 16:9 out of a square: cropped to the asked size.
    const wide = await editor.edit!({ ...job, prompt: 'rotate it', images: [input], width: 320, height: 180, seed: 1 });
    assert.deepEqual([wide.raw?.width, wide.raw?.height], [320, 180]);
    // An unknown prompt: a colour grade, the same for the same prompt.
    const a = await editor.edit!({ ...job, prompt: 'dreamy', images: [input], width: 128, height: 128, seed: 1 });
    const b = await editor.edit!({ ...job, prompt: 'dreamy', images: [input], width: 128, height: 128, seed: 1 });
    assert.ok(a.bytes.equals(b.bytes));
  });

  test('multi-edit: a greyscale mask limits the edit to its white half', async () => {
    const editor = createDemoEditor();
    const input = await disc(256, 'flat');
    // White on the left half, black on the right; one channel, so a mask.
    const mask = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#000' } })
      .composite([{ input: { create: { width: 128, height: 256, channels: 3, background: '#fff' } }, left: 0, top: 0 }])
      .greyscale()
      .removeAlpha()
      .toColourspace('b-w')
      .png()
      .toBuffer();
    const out = await editor.edit!({ ...job, prompt: 'invert', images: [input, mask], width: 256, height: 256, seed: 1 });
    const px = (x: number, y: number) => [...out.bytes.subarray((y * 256 + x) * 4, (y * 256 + x) * 4 + 3)];
    assert.deepEqual(px(10, 10), [255 - 0xf2, 255 - 0xf2, 255 - 0xf2], 'inverted where the mask is white');
    assert.deepEqual(px(245, 10), [0xf2, 0xf2, 0xf2], 'unchanged where it is black');
  });
});

describe('the demo background remover', () => {
  test('a flat background becomes transparent, the subject stays opaque', async () => {
    const engine = createDemoBackgroundRemover();
    const out = await engine.removeBackground!({ ...job, image: await disc(300, 'flat'), width: 300, height: 300 });
    assert.deepEqual(out.raw, { width: 300, height: 300, channels: 4 });
    const alpha = (x: number, y: number) => out.bytes[(y * 300 + x) * 4 + 3];
    assert.equal(alpha(5, 5), 0);
    assert.equal(alpha(150, 150), 255);
    assert.deepEqual([...out.bytes.subarray((150 * 300 + 150) * 4, (150 * 300 + 150) * 4 + 3)], [0xd0, 0x10, 0x10]);
  });

  test('a background that is not one colour is refused, not cut out wrongly', async () => {
    const engine = createDemoBackgroundRemover();
    await assert.rejects(
      engine.removeBackground!({ ...job, image: await disc(300, 'gradient'), width: 300, height: 300 }),
      (e: unknown) => e instanceof EngineError && e.kind === 'bad_request' && /flat backgrounds/.test(e.message),
    );
  });
});

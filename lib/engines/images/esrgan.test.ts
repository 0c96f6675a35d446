// ESRGAN in its worker thread on a small picture the test draws: the output has the asked size, resembles the input,
// and is not plain resampling (it differs measurably from lanczos3 at the same size). Also other factors, kept
// transparency, and a job aborted midway (its worker is ended; the next job gets a fresh one).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import sharp from 'sharp';
import { EngineError } from '../text/types.ts';
import { createEsrganEngine } from './esrgan.ts';

const engine = createEsrganEngine({ tileSize: 48 });
after(() => engine.close?.());

const signal = () => new AbortController().signal;

/** Circles and bars with hard edges: what super-resolution visibly treats differently from a resampling filter. */
async function picture(size: number, alpha = false): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">
    ${alpha ? '' : `<rect width="${size}" height="${size}" fill="#e8e0d0"/>`}
    <circle cx="${size * 0.35}" cy="${size * 0.4}" r="${size * 0.22}" fill="#1d4e89"/>
    <rect x="${size * 0.55}" y="${size * 0.1}" width="${size * 0.08}" height="${size * 0.8}" fill="#c0392b"/>
    <rect x="${size * 0.7}" y="${size * 0.2}" width="${size * 0.04}" height="${size * 0.6}" fill="#222"/>
    <circle cx="${size * 0.3}" cy="${size * 0.8}" r="${size * 0.1}" fill="none" stroke="#0a0" stroke-width="2"/></svg>`;
  const img = sharp(Buffer.from(svg));
  return (alpha ? img : img.removeAlpha()).png().toBuffer();
}

const meanDiff = (a: Buffer, b: Buffer) => {
  assert.equal(a.length, b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d += Math.abs(a[i] - b[i]);
  return d / a.length;
};

describe('the ESRGAN upscaler', () => {
  test('2×: the asked size, like the input, and not plain resampling', async () => {
    const input = await picture(64);
    const out = await engine.upscale!({ requestId: 'r', signal: signal(), image: input, width: 64, height: 64, outWidth: 128, outHeight: 128 });
    assert.deepEqual(out.raw, { width: 128, height: 128, channels: 3 });
    const lanczos = await sharp(input).removeAlpha().resize(128, 128, { kernel: 'lanczos3' }).raw().toBuffer();
    const vsResampling = meanDiff(out.bytes, lanczos);
    assert.ok(vsResampling > 1, `differs from lanczos3 (mean difference ${vsResampling.toFixed(2)})`);
    // Scaled back down, it is the input again, near enough: the model adds detail, not a different picture.
    const back = await sharp(out.bytes, { raw: out.raw! }).resize(64, 64, { kernel: 'lanczos3' }).raw().toBuffer();
    const vsInput = meanDiff(back, await sharp(input).removeAlpha().raw().toBuffer());
    assert.ok(vsInput < 12, `resembles the input (mean difference ${vsInput.toFixed(2)})`);
  });

  test('3× runs the 3× model; an in-between size is resized exactly; transparency is kept', async () => {
    const input = await picture(48, true);
    const three = await engine.upscale!({ requestId: 'r', signal: signal(), image: input, width: 48, height: 48, outWidth: 144, outHeight: 144 });
    assert.deepEqual(three.raw, { width: 144, height: 144, channels: 4 });
    assert.equal(three.bytes[3], 0, 'a transparent corner stays transparent');
    const centre = (72 * 144 + 50) * 4;
    assert.equal(three.bytes[centre + 3], 255, 'the opaque disc stays opaque');
    const odd = await engine.upscale!({ requestId: 'r', signal: signal(), image: input, width: 48, height: 48, outWidth: 120, outHeight: 120 });
    assert.deepEqual([odd.raw?.width, odd.raw?.height], [120, 120]);
  });

  test('an aborted job fails at once and the next one runs on a fresh worker', async () => {
    const input = await picture(64);
    const ac = new AbortController();
    const job = engine.upscale!({ requestId: 'r', signal: ac.signal, image: input, width: 64, height: 64, outWidth: 256, outHeight: 256 });
    setTimeout(() => ac.abort(), 50);
    await assert.rejects(job, (e: unknown) => e instanceof EngineError);
    const next = await engine.upscale!({ requestId: 'r', signal: signal(), image: input, width: 64, height: 64, outWidth: 128, outHeight: 128 });
    assert.deepEqual([next.raw?.width, next.raw?.height], [128, 128]);
  });
});

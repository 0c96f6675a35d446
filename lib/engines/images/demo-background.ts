// The demo background remover: for pictures on a flat background (a product shot, a logo, a scan), which it takes
// from the image's border. Pixels connected to the border and close to its colour become transparent (a flood fill
// on a copy of at most 512² pixels, a few milliseconds), and the mask is scaled back up by sharp, which softens its
// edge. A border that is not one colour is refused with a 400 that says so, rather than returning a wrong cut-out;
// real background removal comes from an upstream (the rembg engine).
import sharp from 'sharp';
import { EngineError } from '../text/types.ts';
import { decode, inspect } from './inputs.ts';
import type { BackgroundJob, ImageEngine } from './engine.ts';

const WORK_PIXELS = 512 * 512;
/** The share of border pixels that must be close to the border's colour for it to count as a flat background. */
const FLAT_SHARE = 0.6;

/** 0 where the background is (connected to the border, close to its colour), 255 elsewhere; undefined: not flat. */
export async function backgroundMask(rgb: Uint8Array, w: number, h: number, channels: number): Promise<Uint8Array | undefined> {
  const border: number[] = [];
  for (let x = 0; x < w; x++) border.push(x, (h - 1) * w + x);
  for (let y = 1; y < h - 1; y++) border.push(y * w, y * w + w - 1);
  // The background colour: the per-channel median of the border.
  const median = [0, 1, 2].map((c) => {
    const v = border.map((i) => rgb[i * channels + c]).sort((a, b) => a - b);
    return v[v.length >> 1];
  });
  const [m0, m1, m2] = median;
  const dist2 = (i: number) => {
    const p = i * channels;
    const r = rgb[p] - m0;
    const g = rgb[p + 1] - m1;
    const b = rgb[p + 2] - m2;
    return r * r + g * g + b * b;
  };
  const near = border.filter((i) => dist2(i) <= 24 * 24);
  if (near.length < border.length * FLAT_SHARE) return undefined;
  // The tolerance follows the background's own noise (a JPEG's, a scan's), within bounds.
  const spread = Math.sqrt(near.reduce((s, i) => s + dist2(i), 0) / near.length);
  const tolerance = Math.min(60, Math.max(18, spread * 3));
  const limit = tolerance * tolerance;
  // An iterative fill over typed arrays, no allocation per pixel, yielding to the event loop every 32K pixels so a
  // 512² working copy never holds it for more than a moment.
  const n = w * h;
  const mask = new Uint8Array(n).fill(255);
  const stack = new Int32Array(n);
  let top = 0;
  const visit = (j: number) => {
    if (mask[j] && dist2(j) <= limit) {
      mask[j] = 0;
      stack[top++] = j;
    }
  };
  for (const i of border) visit(i);
  let steps = 0;
  while (top > 0) {
    if ((++steps & 0x7fff) === 0) await new Promise((resolve) => setImmediate(resolve));
    const i = stack[--top];
    const x = i % w;
    if (x > 0) visit(i - 1);
    if (x < w - 1) visit(i + 1);
    if (i >= w) visit(i - w);
    if (i < n - w) visit(i + w);
  }
  return mask;
}

export function createDemoBackgroundRemover(): ImageEngine {
  return {
    router: 'lagoon-demo-background-remove',
    async removeBackground(job: BackgroundJob) {
      const input = await inspect(job.image, 'image', { minPixels: 1, maxPixels: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER });
      const { width: W, height: H } = input;
      const shrink = Math.min(1, Math.sqrt(WORK_PIXELS / (W * H)));
      const w = Math.max(1, Math.round(W * shrink));
      const h = Math.max(1, Math.round(H * shrink));
      const small = await decode(input).resize(w, h, { fit: 'fill' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const mask = await backgroundMask(small.data, w, h, small.info.channels);
      if (!mask) {
        throw new EngineError('bad_request', "the demo background remover only handles flat backgrounds, and this image's border is not one colour");
      }
      if (job.signal.aborted) throw new EngineError('failed', 'aborted');
      // The mask at full size (bilinear: a soft edge), as the alpha of a white layer; dest-in keeps the image where it is opaque.
      const alpha = await sharp(Buffer.from(mask), { raw: { width: w, height: h, channels: 1 } })
        .resize(W, H, { fit: 'fill', kernel: 'linear' })
        .toColourspace('b-w') // one channel out, as one went in
        .raw()
        .toBuffer();
      const matte = await sharp({ create: { width: W, height: H, channels: 3, background: '#ffffff' } })
        .joinChannel(alpha, { raw: { width: W, height: H, channels: 1 } })
        .png({ compressionLevel: 0 })
        .toBuffer();
      const out = await decode(input)
        .ensureAlpha()
        .composite([{ input: matte, blend: 'dest-in' }])
        .raw()
        .toBuffer({ resolveWithObject: true });
      return { bytes: out.data, raw: { width: out.info.width, height: out.info.height, channels: 4 } };
    },
  };
}

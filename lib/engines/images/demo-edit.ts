// The demo editor: no model, so it understands a small vocabulary of edits and really applies them with sharp —
// greyscale, sepia, blur, sharpen, invert, flip, mirror, rotate, brighter/darker, more/less saturated, warmer/cooler,
// pixelate, and a tint for a named colour ("make it blue"). A prompt that names none of them gets a colour grade seeded
// by the prompt (deterministic). Multi-edit: further images with transparency are layered over the base, a one-channel
// (greyscale) image is a mask (the edit shows where it is white), any other image is blended in at half strength.
// The result is cropped to the asked aspect ratio and sized to the asked resolution.
import sharp, { type OverlayOptions, type Sharp } from 'sharp';
import { decode, inspect } from './inputs.ts';
import type { EditJob, EngineImage, ImageEngine } from './engine.ts';
import { COLOURS, hash32 } from './demo-art.ts';

/** Intermediate images: uncompressed PNG, which sharp reads back with its size and channels. */
const FAST_PNG = { compressionLevel: 0 } as const;

type Op = (img: Sharp, w: number, h: number) => Sharp | Promise<Sharp>;

interface Edit {
  words: RegExp;
  op: Op;
  name: string;
}

const pixelate: Op = async (img, w, h) => {
  const cell = Math.max(4, Math.round(Math.min(w, h) / 48));
  const small = await img.resize(Math.ceil(w / cell), Math.ceil(h / cell), { kernel: 'nearest' }).toBuffer();
  return sharp(small).resize(w, h, { kernel: 'nearest' });
};

/** The vocabulary, in the order edits apply. */
export const EDITS: Edit[] = [
  { name: 'greyscale', words: /\b(gr[ae]yscale|black and white|b&w|monochrome)\b/, op: (i) => i.greyscale() },
  { name: 'sepia', words: /\b(sepia|vintage|old photo)\b/, op: (i) => i.greyscale().tint('#a8835a') },
  { name: 'invert', words: /\b(invert(ed)?|negative)\b/, op: (i) => i.negate({ alpha: false }) },
  { name: 'flip', words: /\b(flip(ped)?|upside down)\b(?! horizontally)/, op: (i) => i.flip() },
  { name: 'mirror', words: /\b(mirror(ed)?|flop|flip(ped)? horizontally)\b/, op: (i) => i.flop() },
  { name: 'rotate', words: /\b(rotate|turn)\b/, op: (i) => i.rotate(90) },
  { name: 'brighter', words: /\b(bright(er|en)|lighter|lighten)\b/, op: (i) => i.modulate({ brightness: 1.25 }) },
  { name: 'darker', words: /\b(dark(er|en)|dimmer)\b/, op: (i) => i.modulate({ brightness: 0.7 }) },
  { name: 'saturate', words: /\b(saturated?|vivid|vibrant|colou?rful)\b/, op: (i) => i.modulate({ saturation: 1.7 }) },
  { name: 'desaturate', words: /\b(desaturated?|muted|faded|washed out)\b/, op: (i) => i.modulate({ saturation: 0.45 }) },
  {
    name: 'warmer',
    words: /\b(warm(er)?)\b/,
    op: (i) =>
      i.recomb([
        [1.1, 0, 0],
        [0, 1.0, 0],
        [0, 0, 0.85],
      ]),
  },
  {
    name: 'cooler',
    words: /\b(cool(er)?|cold(er)?)\b/,
    op: (i) =>
      i.recomb([
        [0.88, 0, 0],
        [0, 1.0, 0],
        [0, 0, 1.12],
      ]),
  },
  { name: 'blur', words: /\b(blur(red|ry)?|soft(en|er)?|out of focus)\b/, op: (i, w, h) => i.blur(Math.max(1, Math.min(w, h) / 150)) },
  { name: 'sharpen', words: /\b(sharp(en|er)|crisp(er)?)\b/, op: (i) => i.sharpen({ sigma: 1.5 }) },
  { name: 'pixelate', words: /\b(pixel(ate|ated|ize|ized)?|8-?bit)\b/, op: pixelate },
];

/** The edits a prompt names, in application order; a named colour adds a tint. */
export function editsOf(prompt: string): { names: string[]; ops: Op[] } {
  const text = prompt.toLowerCase();
  const chosen = EDITS.filter((e) => e.words.test(text));
  const names = chosen.map((e) => e.name);
  const ops = chosen.map((e) => e.op);
  const colour = (text.match(/[a-z]+/g) ?? []).find((w) => Object.hasOwn(COLOURS, w) && w !== 'black' && w !== 'white');
  if (colour) {
    names.push(`tint ${colour}`);
    ops.push((i) => i.tint(COLOURS[colour]));
  }
  return { names, ops };
}

/** Nothing recognised: a grade seeded by the prompt (a hue turn and a saturation), the same for the same prompt. */
function seededGrade(seed: number): Op {
  const hue = 30 + (seed % 300);
  const saturation = 0.8 + ((seed >>> 9) % 60) / 100;
  return (i) => i.modulate({ hue, saturation });
}

async function layered(job: EditJob, base: Sharp, w: number, h: number): Promise<{ img: Sharp; mask?: Buffer }> {
  if (job.images.length < 2) return { img: base };
  const overlays: OverlayOptions[] = [];
  let mask: Buffer | undefined;
  for (const [i, bytes] of job.images.slice(1).entries()) {
    // Inputs were checked by the pipeline; inspect again only for the header (alpha, channels).
    const layer = await inspect(bytes, `images[${i + 1}]`, { minPixels: 1, maxPixels: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER });
    const meta = await sharp(bytes).metadata();
    const fitted = decode(layer).resize(w, h, { fit: 'cover' });
    if (!layer.hasAlpha && (meta.channels ?? 3) <= 2) mask = await fitted.greyscale().raw().toBuffer();
    else if (layer.hasAlpha) overlays.push({ input: await fitted.png(FAST_PNG).toBuffer() });
    else overlays.push({ input: await fitted.ensureAlpha(0.5).png(FAST_PNG).toBuffer() });
  }
  const img = overlays.length ? sharp(await base.composite(overlays).png(FAST_PNG).toBuffer()) : base;
  return { img, mask };
}

export function createDemoEditor(): ImageEngine {
  return {
    router: 'lagoon-demo-edit',
    async edit(job) {
      const first = await inspect(job.images[0], 'image', { minPixels: 1, maxPixels: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER });
      const { width: w, height: h } = job;
      // The base, cropped to the asked aspect ratio around its most interesting part, at the asked size.
      const base = sharp(await decode(first).resize(w, h, { fit: 'cover', position: sharp.strategy.attention }).png(FAST_PNG).toBuffer());
      const { img, mask } = await layered(job, base, w, h);
      const before = mask ? await img.clone().png(FAST_PNG).toBuffer() : undefined;
      const { ops } = editsOf(job.prompt);
      if (!ops.length) ops.push(seededGrade(hash32(job.prompt) ^ job.seed));
      let out = img;
      for (const op of ops) out = sharp(await (await op(out, w, h)).png(FAST_PNG).toBuffer());
      // A quarter turn swaps the sides: the result is sized back to what was asked.
      out = out.resize(w, h, { fit: 'cover' });
      if (before && mask) {
        // Edited where the mask is white, the original where it is black, mixed in between (libvips, not a JS loop).
        // sharp removes alpha at the end of a pipeline: the RGB is materialised first, then the mask joins it as alpha.
        const rgb = await out.removeAlpha().raw().toBuffer();
        const edited = await sharp(rgb, { raw: { width: w, height: h, channels: 3 } })
          .joinChannel(mask, { raw: { width: w, height: h, channels: 1 } })
          .png(FAST_PNG)
          .toBuffer();
        out = sharp(before).composite([{ input: edited }]);
      }
      const { data, info } = await out.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      return { bytes: data, raw: { width: info.width, height: info.height, channels: 4 } } satisfies EngineImage;
    },
  };
}

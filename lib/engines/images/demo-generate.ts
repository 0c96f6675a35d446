// The demo image generator: the project's own, with no weights, so /image/generate runs offline. It renders
// demo-art.ts's SVG with sharp (libvips: its own threads, off the event loop), then gives it the style preset's finish
// and cfg_scale's saturation. Deterministic: the same prompt, seed, size, steps, cfg_scale and style give the same
// pixels. /models names it a demo and says what it does.
import sharp, { type Sharp } from 'sharp';
import { EngineError } from '../text/types.ts';
import type { EngineImage, GenerateJob, ImageEngine } from './engine.ts';
import { demoSvg, type ShapeKind } from './demo-art.ts';

interface Finish {
  shapes: ShapeKind;
  dark?: boolean;
  /** Applied to the rendered picture. */
  apply?: (img: Sharp, w: number, h: number) => Promise<Sharp> | Sharp;
}

const FINISHES: Record<string, Finish> = {
  'pixel art': {
    shapes: 'polygon',
    // Down to a coarse grid and back with nearest-neighbour: visible pixels.
    apply: async (img, w, h) => {
      const cell = Math.max(4, Math.round(Math.min(w, h) / 64));
      const small = await img.resize(Math.ceil(w / cell), Math.ceil(h / cell), { kernel: 'nearest' }).toBuffer();
      return sharp(small).resize(w, h, { kernel: 'nearest' });
    },
  },
  'line art': { shapes: 'stroke', apply: (img) => img.greyscale().linear(1.6, -60) },
  watercolor: { shapes: 'blob', apply: (img) => img.blur(4).modulate({ brightness: 1.08 }) },
  'analog film': { shapes: 'blob', apply: (img) => img.tint('#c8a878').gamma(1.4) },
  'neon punk': { shapes: 'stroke', dark: true },
  lowpoly: { shapes: 'polygon' },
  origami: { shapes: 'polygon' },
  'isometric style': { shapes: 'polygon' },
  'craft clay': { shapes: 'polygon', apply: (img) => img.blur(1.5) },
  '3d model': { shapes: 'polygon', apply: (img) => img.sharpen() },
  photographic: { shapes: 'blob', apply: (img) => img.blur(1.2) },
  cinematic: {
    shapes: 'blob',
    // Letterbox bars: the picture framed at about 2.39:1.
    apply: async (img, w, h) => {
      const bar = Math.max(0, Math.round((h - w / 2.39) / 2));
      if (!bar) return img;
      const black = { create: { width: w, height: bar, channels: 3 as const, background: '#000' } };
      const base = await img.png({ compressionLevel: 0 }).toBuffer();
      return sharp(base).composite([
        { input: black, top: 0, left: 0 },
        { input: black, top: h - bar, left: 0 },
      ]);
    },
  },
  'comic book': { shapes: 'stroke', apply: (img) => img.sharpen({ sigma: 2 }).modulate({ saturation: 1.5 }) },
  anime: { shapes: 'blob', apply: (img) => img.modulate({ saturation: 1.4, brightness: 1.05 }) },
};

const DEFAULT_FINISH: Finish = { shapes: 'blob' };

export const finishOf = (style: string | undefined): Finish =>
  style && Object.hasOwn(FINISHES, style.toLowerCase()) ? FINISHES[style.toLowerCase()] : DEFAULT_FINISH;

/** One picture, as raw RGB pixels. */
export async function renderDemo(job: Omit<GenerateJob, 'variants' | 'requestId' | 'signal' | 'safeMode'>): Promise<EngineImage> {
  const finish = finishOf(job.stylePreset);
  const svg = demoSvg({
    prompt: job.prompt,
    negativePrompt: job.negativePrompt,
    seed: job.seed,
    width: job.width,
    height: job.height,
    steps: job.steps,
    shapes: finish.shapes,
    dark: finish.dark ?? false,
  });
  // The SVG is ours (no text, no external references), rendered at its own size.
  let img = sharp(Buffer.from(svg), { density: 72 }).removeAlpha();
  // cfg_scale: how strongly the palette is pushed (saturation), 7 being about the picture as drawn.
  const cfg = job.cfgScale ?? 7;
  img = img.modulate({ saturation: Math.min(3, Math.max(0.3, 0.4 + cfg * 0.12)) });
  if (finish.apply) img = await finish.apply(img, job.width, job.height);
  const { data, info } = await img.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { bytes: data, raw: { width: info.width, height: info.height, channels: info.channels as 3 } };
}

export function createDemoGenerator(): ImageEngine {
  return {
    router: 'lagoon-demo-image',
    async generate(job) {
      const out: EngineImage[] = [];
      for (let i = 0; i < job.variants; i++) {
        if (job.signal.aborted) throw new EngineError('failed', 'aborted');
        out.push(await renderDemo({ ...job, seed: job.seed + i }));
      }
      return out;
    },
  };
}

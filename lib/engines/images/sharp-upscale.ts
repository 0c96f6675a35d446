// Upscaling by resampling with sharp (libvips, its own threads): lanczos3 by default. Fast at any size (a 4096²
// output in well under a second), so it serves the images too large for the neural upscaler; it adds no detail.
import type { ImageEngine } from './engine.ts';
import { decode, inspect } from './inputs.ts';

export function createSharpUpscaler(kernel: 'lanczos3' | 'lanczos2' | 'mitchell' | 'cubic' = 'lanczos3'): ImageEngine {
  return {
    router: `sharp-${kernel}`,
    async upscale(job) {
      const input = await inspect(job.image, 'image', { minPixels: 1, maxPixels: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER });
      const out = await decode(input).resize(job.outWidth, job.outHeight, { fit: 'fill', kernel }).raw().toBuffer({ resolveWithObject: true });
      return { bytes: out.data, raw: { width: out.info.width, height: out.info.height, channels: out.info.channels as 1 | 2 | 3 | 4 } };
    },
  };
}

// What every engine's image goes through before it is sent: decoded (an engine that returns something that is not an
// image fails the request, and is not billed), blurred when safe mode applies to it, watermarked unless hidden, given
// EXIF metadata when asked, and encoded in the requested format. All of it is sharp (libvips threads), never the
// event loop.
import sharp, { type Sharp } from 'sharp';
import { EngineError } from '../engines/text/types.ts';
import type { EngineImage } from '../engines/images/engine.ts';
import type { ImageFormat } from './requests.ts';

export const CONTENT_TYPES: Record<ImageFormat, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };

/** The most pixels an engine's output may decode to (a 8192² image). */
export const MAX_OUTPUT_PIXELS = 8192 * 8192;

export interface FinishOptions {
  format: ImageFormat;
  /** Blur it (safe mode, and the content check flagged it). */
  blur: boolean;
  watermark: boolean;
  /** EXIF ImageDescription and Software (embed_exif_metadata). */
  exif?: { description: string; software: string };
  /** Resize to exactly this size (cropping to its ratio) when the engine returned another. */
  size?: { width: number; height: number };
}

export interface FinishedImage {
  bytes: Buffer;
  contentType: string;
  width: number;
  height: number;
}

/** The engine's image, decoded; a failure means the engine sent something that is not an image. */
export async function engineImage(img: EngineImage): Promise<{ pipeline: Sharp; width: number; height: number }> {
  const pipeline = img.raw ? sharp(img.bytes, { raw: img.raw }) : sharp(img.bytes, { limitInputPixels: MAX_OUTPUT_PIXELS, pages: 1 });
  try {
    const meta = await pipeline.metadata();
    if (!meta.width || !meta.height) throw new Error('no dimensions');
    const turned = (meta.orientation ?? 1) >= 5;
    return { pipeline: pipeline.autoOrient(), width: turned ? meta.height : meta.width, height: turned ? meta.width : meta.height };
  } catch {
    throw new EngineError('failed', 'the engine returned data that is not a readable image');
  }
}

// A small wave mark in a translucent disc; drawn, not typed, so no font is needed.
function watermarkSvg(size: number): Buffer {
  const wave = (y: number) => `<path d="M4 ${y}c2-2 4-2 6 0s4 2 6 0 4-2 6 0" stroke="#fff" stroke-width="1.8" fill="none" stroke-linecap="round"/>`;
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 26 26"><circle cx="13" cy="13" r="12" fill="#000" fill-opacity="0.28"/><g opacity="0.85">${wave(10)}${wave(15)}</g></svg>`,
  );
}

// libvips reads a trailing " (…)" of an EXIF string as its type note and drops it: a value that ends in ")" gets a
// note of its own to drop, so the text itself arrives whole.
const exifText = (s: string) => (s.endsWith(')') ? `${s} (text)` : s);

export async function finishImage(img: EngineImage, o: FinishOptions): Promise<FinishedImage> {
  const decoded = await engineImage(img);
  let pipeline = decoded.pipeline;
  if (o.size && (o.size.width !== decoded.width || o.size.height !== decoded.height)) {
    pipeline = pipeline.resize(o.size.width, o.size.height, { fit: 'cover', kernel: 'lanczos3' });
  }
  // Materialise once: blur, mark and encode need the final size.
  let { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  let out = sharp(data, { raw: { width, height, channels: info.channels } });
  if (o.blur) {
    ({ data, info } = await out
      .blur(Math.max(8, Math.min(width, height) / 30))
      .raw()
      .toBuffer({ resolveWithObject: true }));
    out = sharp(data, { raw: { width, height, channels: info.channels } });
  }
  if (o.watermark && Math.min(width, height) >= 64) {
    const size = Math.round(Math.min(96, Math.max(16, Math.min(width, height) * 0.06)));
    const margin = Math.round(size / 3);
    out = out.composite([{ input: watermarkSvg(size), left: width - size - margin, top: height - size - margin }]);
  }
  if (o.exif) out = out.withExif({ IFD0: { ImageDescription: exifText(o.exif.description), Software: exifText(o.exif.software) } });
  let bytes: Buffer;
  if (o.format === 'jpeg') bytes = await out.flatten({ background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer();
  else if (o.format === 'png') bytes = await out.png({ compressionLevel: 6 }).toBuffer();
  else bytes = await out.webp({ quality: 90, effort: 3 }).toBuffer();
  return { bytes, contentType: CONTENT_TYPES[o.format], width, height };
}

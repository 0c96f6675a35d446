// "Edit this image" in the app: a gallery image (by id) or a picture attached in a chat (its bytes, as a data: URL),
// a prompt, and optionally a mask painted in the browser. The edit runs through the API's own POST /image/edit, or
// /image/multi-edit with the mask as the second image, as one metered call; the result joins the gallery.
//
// Only what the model's engine can do is offered: a mask goes to engines that read a second image as one (the demo
// editor, AUTOMATIC1111's img2img, a ComfyUI workflow); others edit the whole picture, and a mask sent to them is
// refused with the reason (the browser shows it before anyone paints).
import sharp, { type Stats } from 'sharp';
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { imageLimits, MAX_INPUT_BYTES } from '../models/image-models.ts';
import type { ModelEntry } from '../models/schema.ts';

/** A data: URL of MAX_INPUT_BYTES is about 4/3 as long in base64; the rest of the body is small. */
export const EDIT_BODY_LIMIT = Math.ceil((MAX_INPUT_BYTES * 4) / 3) + 64 * 1024;
const DATA_URL = /^data:image\/(png|jpeg|webp|gif);base64,([A-Za-z0-9+/]+={0,2})$/;

const dataUrl = (what: string) =>
  z
    .string()
    .max(EDIT_BODY_LIMIT)
    .regex(DATA_URL, { error: `${what} must be a data: URL of a PNG, JPEG, WebP or GIF image` });

export const editBody = z
  .strictObject({
    /** A gallery image of this user… */
    sourceId: z.string().min(1).max(200).optional(),
    /** …or a picture's bytes (an image attached in a chat). */
    image: dataUrl('image').optional(),
    prompt: z
      .string()
      .max(7500)
      .refine((s) => s.trim().length > 0, 'prompt is empty: say what to change'),
    model: z.string().min(1).max(200).optional(),
    /** White where the edit applies, black or transparent where the picture stays as it is. */
    mask: dataUrl('mask').optional(),
  })
  .refine((b) => (b.sourceId === undefined) !== (b.image === undefined), { message: 'give sourceId or image (one of them)', path: ['image'] });
export type EditBody = z.output<typeof editBody>;

/** Why this edit model cannot take a painted mask, or null when it can. */
export function maskRefusal(m: ModelEntry): string | null {
  if (imageLimits(m).maxInputImages < 2) return `${m.name} takes one image and no mask: it edits the whole picture`;
  switch (m.engine.kind) {
    case 'demo-edit':
    case 'a1111':
    case 'comfyui':
      return null;
    default:
      return `${m.name} edits the whole picture: it takes no mask`;
  }
}

export function bytesOfDataUrl(url: string): Buffer {
  const m = DATA_URL.exec(url);
  if (!m) throw new ApiError('INVALID_REQUEST', 'not a data: URL of an image', { param: 'image' });
  return Buffer.from(m[2], 'base64');
}

/**
 * The browser's painted mask (RGBA, strokes on transparency) as a one-channel greyscale PNG: engines read white as
 * "edit here". Transparent is black. An empty mask (nothing painted) would edit nothing, so it is refused.
 */
export async function greyscaleMask(url: string): Promise<Buffer> {
  let grey: Buffer;
  let stats: Stats;
  try {
    const flat = sharp(bytesOfDataUrl(url)).flatten({ background: '#000000' }).greyscale().toColourspace('b-w');
    grey = await flat.png().toBuffer();
    stats = await sharp(grey).stats();
  } catch {
    throw new ApiError('INVALID_REQUEST', 'mask is not a readable image', { param: 'mask' });
  }
  if (stats.channels[0].max === 0)
    throw new ApiError('INVALID_REQUEST', 'the mask is empty: paint where to edit, or send no mask to edit it all', { param: 'mask' });
  return grey;
}

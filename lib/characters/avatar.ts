// Avatars: any PNG, JPEG, WebP or GIF up to 5 MB becomes a 512×512 WebP (centre-cropped; a GIF's first frame).
// sharp decodes in its own threads, so the event loop is not held; the pixel cap refuses decompression bombs.
import sharp from 'sharp';
import { ApiError } from '../api/errors.ts';
import { AVATAR_SIDE } from './limits.ts';
import type { Avatar } from './store.ts';

export const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
const FORMATS = new Set(['png', 'jpeg', 'webp', 'gif']);
/** 40 megapixels: any real photo, not a crafted bomb. */
const MAX_INPUT_PIXELS = 40_000_000;

export async function resizeAvatar(input: Buffer): Promise<Avatar> {
  let format: string | undefined;
  try {
    format = (await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS }).metadata()).format;
  } catch {
    throw new ApiError('INVALID_REQUEST', 'The avatar is not a readable image (PNG, JPEG, WebP or GIF)');
  }
  if (!format || !FORMATS.has(format)) throw new ApiError('INVALID_REQUEST', `The avatar must be PNG, JPEG, WebP or GIF, not ${format ?? 'unknown'}`);
  try {
    const data = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .resize(AVATAR_SIDE, AVATAR_SIDE, { fit: 'cover', position: 'attention' })
      .webp({ quality: 82 })
      .toBuffer();
    return { contentType: 'image/webp', data };
  } catch {
    throw new ApiError('INVALID_REQUEST', 'The avatar image could not be decoded (it may be truncated or too large in pixels)');
  }
}

/** The avatar as PNG (a card's carrier image); a plain tile when the character has none. */
export async function avatarPng(avatar: Avatar | undefined): Promise<Buffer> {
  if (avatar) return sharp(avatar.data).png().toBuffer();
  return sharp({ create: { width: AVATAR_SIDE, height: AVATAR_SIDE, channels: 3, background: { r: 28, g: 74, b: 92 } } })
    .png()
    .toBuffer();
}

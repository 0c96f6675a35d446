// Input images (edit, multi-edit, upscale, background removal): the bytes from an upload, base64, a data: URL or an
// http(s) URL (fetched through the safe fetcher, so a user's URL never reaches the host's own network), then checked
// before any work: under the byte limit, a PNG, JPEG, WebP or GIF by its magic bytes (not its label), readable, and
// within the model's pixel bounds. Only the header is read here (sharp's metadata); decoding happens in the engine,
// with sharp's pixel limit set to the same bound, so a decompression bomb is refused, not decoded.
import sharp, { type Metadata, type Sharp } from 'sharp';
import { ApiError } from '../../api/errors.ts';
import { parseDataUrl } from '../../files/data-url.ts';
import { safeFetch } from '../../net/safe-fetch.ts';

/** An input image as a request carries it: base64, a data: URL or an http(s) URL, or an uploaded file's bytes. */
export type ImageInput = string | Buffer;

export interface InputImage {
  bytes: Buffer;
  format: 'png' | 'jpeg' | 'webp' | 'gif';
  /** As displayed (EXIF orientation applied). */
  width: number;
  height: number;
  hasAlpha: boolean;
}

export interface InputBounds {
  minPixels: number;
  maxPixels: number;
  maxBytes: number;
}

export interface FetchPolicy {
  /** Hosts exempt from the private-address check (Config.fetchAllowHosts). */
  allowHosts?: string[];
  signal?: AbortSignal;
}

const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/** The format by magic bytes, or undefined. */
export function sniffImage(b: Buffer): InputImage['format'] | undefined {
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.toString('latin1', 0, 6))) return 'gif';
  return undefined;
}

/** The bytes an input names: as uploaded, decoded from base64 or a data: URL, or fetched from an http(s) URL. */
export async function inputBytes(input: ImageInput, field: string, bounds: Pick<InputBounds, 'maxBytes'>, policy: FetchPolicy): Promise<Buffer> {
  if (Buffer.isBuffer(input)) return input;
  const text = input.trim();
  if (/^https?:\/\//i.test(text)) {
    let fetched;
    try {
      fetched = await safeFetch(text, {
        maxBytes: bounds.maxBytes,
        allowHosts: policy.allowHosts,
        accept: 'image/*',
        signal: policy.signal,
        timeoutMs: 15_000,
      });
    } catch (e) {
      if (e instanceof ApiError) throw new ApiError('INVALID_REQUEST', `${field}: ${e.message}`, { param: field });
      throw e;
    }
    if (fetched.status < 200 || fetched.status > 299) {
      throw new ApiError('INVALID_REQUEST', `${field}: fetching the URL answered HTTP ${fetched.status}`, { param: field });
    }
    return fetched.body;
  }
  // base64 grows by 4/3: a longer text cannot decode to an allowed size, so it is refused before decoding.
  const payload = /^data:/i.test(text) ? text.slice(text.indexOf(',') + 1) : text;
  if (Math.floor((payload.length * 3) / 4) > bounds.maxBytes + 3) throw tooLarge(field, bounds.maxBytes);
  try {
    return parseDataUrl(/^data:/i.test(text) ? text : `data:application/octet-stream;base64,${text}`).data;
  } catch (e) {
    const why = e instanceof ApiError ? e.message.replace(/^Invalid data URL: /, '') : 'it could not be decoded';
    throw new ApiError('INVALID_REQUEST', `${field} must be base64, a data: URL or an http(s) URL: ${why}`, { param: field });
  }
}

const tooLarge = (field: string, maxBytes: number) => new ApiError('FILE_TOO_LARGE', `${field} is larger than ${mb(maxBytes)}`, { param: field });

/** An input image, checked against the bounds (400s that name the field and the bound). */
export async function loadInput(input: ImageInput, field: string, bounds: InputBounds, policy: FetchPolicy): Promise<InputImage> {
  const bytes = await inputBytes(input, field, bounds, policy);
  return inspect(bytes, field, bounds);
}

export async function inspect(bytes: Buffer, field: string, bounds: InputBounds): Promise<InputImage> {
  if (bytes.length === 0) throw new ApiError('INVALID_REQUEST', `${field} is empty`, { param: field });
  if (bytes.length > bounds.maxBytes) throw tooLarge(field, bounds.maxBytes);
  const format = sniffImage(bytes);
  if (!format) throw new ApiError('UNSUPPORTED_FILE', `${field} must be a PNG, JPEG, WebP or GIF image`, { param: field });
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw new ApiError('CORRUPTED_FILE', `${field} could not be read as a ${format.toUpperCase()} image`, { param: field });
  }
  if (!meta.width || !meta.height) throw new ApiError('CORRUPTED_FILE', `${field} has no dimensions`, { param: field });
  // Orientations 5–8 are rotated a quarter turn: the image as shown is height × width.
  const turned = (meta.orientation ?? 1) >= 5;
  const width = turned ? meta.height : meta.width;
  const height = turned ? meta.width : meta.height;
  const pixels = width * height;
  if (pixels < bounds.minPixels) {
    throw new ApiError('INVALID_REQUEST', `${field} is ${width}×${height} (${pixels} pixels); at least ${bounds.minPixels} pixels are needed`, {
      param: field,
    });
  }
  if (pixels > bounds.maxPixels) {
    throw new ApiError('INVALID_REQUEST', `${field} is ${width}×${height} (${pixels} pixels); at most ${bounds.maxPixels} pixels are allowed`, {
      param: field,
    });
  }
  return { bytes, format, width, height, hasAlpha: meta.hasAlpha ?? false };
}

/**
 * A sharp pipeline over a checked input: oriented as displayed, first frame only, and refused past its own pixel
 * count (so a file whose header lied about its size cannot decode to more).
 */
export function decode(img: Pick<InputImage, 'bytes' | 'width' | 'height'>): Sharp {
  return sharp(img.bytes, { limitInputPixels: img.width * img.height, pages: 1 }).autoOrient();
}

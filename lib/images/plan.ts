// Choosing the model and checking a request against its limits, before anything is held or run. Every refusal is a
// 400 that names the field, the limit and the model.
import { ApiError } from '../api/errors.ts';
import { type Catalogue, resolveModel } from '../models/catalogue.ts';
import { type ImageLimits, type ImageModelType, RESOLUTIONS, type Resolution } from '../models/image-models.ts';
import type { ModelEntry } from '../models/schema.ts';

const TYPE_WORDS: Record<ImageModelType, string> = {
  image: 'an image generation',
  inpaint: 'an image edit (inpaint)',
  upscale: 'an upscale',
  'background-remove': 'a background removal',
};

const invalid = (param: string, message: string) => new ApiError('INVALID_REQUEST', message, { param });

/** The catalogue's default model of a type: the one with the `default` trait, else the first. 404 when there is none. */
export function defaultModelOf(cat: Catalogue, type: ImageModelType): ModelEntry {
  const ofType = cat.models.filter((m) => m.type === type);
  const model = ofType.find((m) => m.traits.includes('default')) ?? ofType[0];
  if (!model) throw new ApiError('MODEL_NOT_FOUND', `This server serves no ${type} models`);
  return model;
}

/** The named model (id, trait, alias) of this type, or the type's default when no name is given. */
export function imageModel(cat: Catalogue, name: string | undefined, type: ImageModelType, param = 'model'): ModelEntry {
  if (name === undefined) return defaultModelOf(cat, type);
  const model = resolveModel(cat, name, type);
  if (model.type !== type) {
    throw new ApiError('INVALID_MODEL', `Model ${model.id} is a ${model.type} model, not ${TYPE_WORDS[type]} model`, { param });
  }
  return model;
}

export function checkPrompt(model: ModelEntry, limits: ImageLimits, prompt: string, param = 'prompt'): void {
  if (prompt.length > limits.promptCharacterLimit) {
    throw invalid(param, `${param} is ${prompt.length} characters; model ${model.id} takes at most ${limits.promptCharacterLimit}`);
  }
}

const roundTo = (x: number, step: number) => Math.max(step, Math.round(x / step) * step);

/** A size from an aspect ratio ("16:9") and a longest side. */
export function sizeFromRatio(ratio: string, longSide: number, divisor = 1): { width: number; height: number } {
  const [w, h] = ratio.split(':').map(Number);
  return w >= h
    ? { width: roundTo(longSide, divisor), height: roundTo((longSide * h) / w, divisor) }
    : { width: roundTo((longSide * w) / h, divisor), height: roundTo(longSide, divisor) };
}

function pickResolution(model: ModelEntry, limits: ImageLimits, resolution: string | undefined): Resolution {
  if (resolution === undefined) return limits.defaultResolution;
  if (!limits.resolutions.length) throw invalid('resolution', `Model ${model.id} does not take resolution; give width and height`);
  if (!(limits.resolutions as string[]).includes(resolution)) {
    throw invalid('resolution', `resolution must be one of ${limits.resolutions.join(', ')} for model ${model.id} (got "${resolution}")`);
  }
  return resolution as Resolution;
}

function pickRatio(model: ModelEntry, limits: ImageLimits, ratio: string): string {
  if (!limits.aspectRatios.length) throw invalid('aspect_ratio', `Model ${model.id} does not take aspect_ratio; give width and height`);
  if (!limits.aspectRatios.includes(ratio)) {
    throw invalid('aspect_ratio', `aspect_ratio must be one of ${limits.aspectRatios.join(', ')} for model ${model.id} (got "${ratio}")`);
  }
  return ratio;
}

/** Checks a generation size against the model: its longest side, its divisor, and the sizes it is priced for. */
export function checkSize(model: ModelEntry, limits: ImageLimits, size: { width: number; height: number }, param: string): { width: number; height: number } {
  const { width, height } = size;
  const d = limits.widthHeightDivisor;
  if (width % d || height % d) throw invalid(param, `width and height must be multiples of ${d} for model ${model.id} (got ${width}×${height})`);
  if (width > limits.maxSide || height > limits.maxSide) {
    throw invalid(param, `${width}×${height} is larger than model ${model.id} allows: at most ${limits.maxSide} pixels a side`);
  }
  if (limits.pricedSizes && !limits.pricedSizes.includes(`${width}x${height}`)) {
    throw invalid(param, `Model ${model.id} generates only these sizes: ${limits.pricedSizes.join(', ')} (got ${width}x${height})`);
  }
  return size;
}

/** /image/generate: width and height, or aspect_ratio and resolution (the model's), never both. */
export function generateSize(
  model: ModelEntry,
  limits: ImageLimits,
  req: { width?: number; height?: number; aspect_ratio?: string; resolution?: string },
): { width: number; height: number } {
  if (req.aspect_ratio !== undefined || req.resolution !== undefined) {
    if (req.width !== undefined || req.height !== undefined) {
      throw invalid('aspect_ratio', 'Give either width and height, or aspect_ratio and resolution, not both');
    }
    const ratio = req.aspect_ratio === undefined ? (limits.aspectRatios[0] ?? '1:1') : pickRatio(model, limits, req.aspect_ratio);
    const tier = pickResolution(model, limits, req.resolution);
    return checkSize(model, limits, sizeFromRatio(ratio, RESOLUTIONS[tier], limits.widthHeightDivisor), req.resolution ? 'resolution' : 'aspect_ratio');
  }
  return checkSize(model, limits, { width: req.width ?? limits.defaultWidth, height: req.height ?? limits.defaultHeight }, 'width');
}

/** /image/edit: the output's ratio (the input's when `auto` or absent) and resolution tier. */
export function editSize(
  model: ModelEntry,
  limits: ImageLimits,
  input: { width: number; height: number },
  req: { aspect_ratio?: string; resolution?: string },
): { width: number; height: number; resolution: Resolution } {
  const resolution = pickResolution(model, limits, req.resolution);
  const long = RESOLUTIONS[resolution];
  if (req.aspect_ratio === undefined || req.aspect_ratio === 'auto') {
    const k = long / Math.max(input.width, input.height);
    return { width: Math.max(1, Math.round(input.width * k)), height: Math.max(1, Math.round(input.height * k)), resolution };
  }
  return { ...sizeFromRatio(pickRatio(model, limits, req.aspect_ratio), long), resolution };
}

/**
 * /image/upscale: the input times the scale; an output past the model's pixel limit is reduced to fit (as the public
 * API does at 4×), never below the input itself.
 */
export function upscaleSize(
  model: ModelEntry,
  limits: ImageLimits,
  input: { width: number; height: number },
  scale: number,
): { outWidth: number; outHeight: number } {
  if (scale > limits.maxScale) throw invalid('scale', `scale must be at most ${limits.maxScale} for model ${model.id}`);
  const fit = Math.sqrt(limits.maxOutputPixels / (input.width * input.height));
  const k = Math.min(scale, fit);
  if (k < 1) throw invalid('image', `the image is too large for model ${model.id} to upscale (its output is at most ${limits.maxOutputPixels} pixels)`);
  let outWidth = Math.round(input.width * k);
  let outHeight = Math.round(input.height * k);
  // Rounding must not push a reduced output past the limit.
  while (outWidth * outHeight > limits.maxOutputPixels) {
    outWidth = Math.floor(outWidth * 0.999);
    outHeight = Math.floor(outHeight * 0.999);
  }
  return { outWidth, outHeight };
}

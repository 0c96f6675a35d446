// The image mode's settings as the user left them, and what they mean for the chosen model: each setting only where
// the model offers it, else the model's default. Kept in this tab's session storage, so a reload (and the move from
// a new chat to its own page) keeps them.
import type { AppImageModel, GenerateImagesRequest } from '@/lib/images/wire.ts';

export interface ImageChoices {
  /** The image mode is on (kept across the move from a new chat to its page, and reloads). */
  on?: boolean;
  model?: string;
  style?: string;
  aspect?: string;
  resolution?: string;
  size?: string;
  variants: number;
  /** As typed: empty for a random seed. */
  seed: string;
}

export const NO_CHOICES: ImageChoices = { variants: 1, seed: '' };
export const SEED_MAX = 999_999_995;

export function generatorsOf(models: AppImageModel[] | undefined): AppImageModel[] {
  return (models ?? []).filter((m) => m.kind === 'generate');
}

export function modelFor(models: AppImageModel[], c: ImageChoices): AppImageModel | undefined {
  return models.find((m) => m.id === c.model) ?? models.find((m) => m.isDefault) ?? models[0];
}

/** A typed seed: a whole number in range, or undefined (random) when empty; null when it is not a valid seed. */
export function seedOf(text: string): number | undefined | null {
  const t = text.trim();
  if (!t) return undefined;
  if (!/^\d{1,9}$/.test(t)) return null;
  const n = Number(t);
  return n >= 1 && n <= SEED_MAX ? n : null;
}

/** The request's model settings from the choices (the chat and the prompt are added by the caller). */
export type ImageShape = Omit<GenerateImagesRequest, 'conversationId' | 'parentId' | 'prompt' | 'variants'> & { variants: number };

export function requestOf(model: AppImageModel, c: ImageChoices, styles: string[]): ImageShape {
  const out: ImageShape = {
    model: model.id,
    variants: Math.min(Math.max(1, c.variants), model.maxVariants),
  };
  if (c.style && styles.includes(c.style)) out.style = c.style;
  if (model.aspectRatios.length) {
    out.aspectRatio = c.aspect && model.aspectRatios.includes(c.aspect) ? c.aspect : model.aspectRatios[0];
    if (model.resolutions.length)
      out.resolution = c.resolution && model.resolutions.includes(c.resolution) ? c.resolution : (model.defaultResolution ?? undefined);
  } else {
    const size = c.size && model.sizes.includes(c.size) ? c.size : model.sizes.includes(model.defaultSize) ? model.defaultSize : model.sizes[0];
    if (size) {
      const [w, h] = size.split('x').map(Number);
      out.width = w;
      out.height = h;
    }
  }
  const seed = seedOf(c.seed);
  if (typeof seed === 'number') out.seed = seed;
  return out;
}

/** What one image costs at the model's default steps (per-size prices aside), in USD; null when not priced per image. */
export function perImageUsd(model: AppImageModel): number | null {
  if (model.perImageUsd === null) return null;
  return model.perImageUsd + (model.perStepUsd ?? 0) * model.defaultSteps;
}

const KEY = 'lagoon.image-choices';

export function loadChoices(): ImageChoices {
  try {
    const v = JSON.parse(sessionStorage.getItem(KEY) ?? 'null');
    return v && typeof v === 'object' ? { ...NO_CHOICES, ...v } : NO_CHOICES;
  } catch {
    return NO_CHOICES;
  }
}

export function saveChoices(c: ImageChoices): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(c));
  } catch {
    // Storage refused (private mode, quota): the settings last for this page only.
  }
}

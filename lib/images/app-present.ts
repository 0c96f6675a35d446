// The image mode's records as the browser sees them: the catalogue's image-family models (generation, upscale,
// background removal; a demo named as one, with its description, as /models does) and stored images.
import type { StoredImage } from '../conversations/images.ts';
import type { Catalogue } from '../models/catalogue.ts';
import { imageLimits } from '../models/image-models.ts';
import type { ModelEntry } from '../models/schema.ts';
import type { AppImage, AppImageModel, ImageModelKind } from './wire.ts';
import { maskRefusal } from './app-edit.ts';

const KINDS: Record<string, ImageModelKind> = { image: 'generate', upscale: 'upscale', 'background-remove': 'background-remove', inpaint: 'edit' };

/** Sizes offered for a model that takes width and height (no aspect ratios): these, where the model allows them. */
const SIZES = ['512x512', '768x768', '1024x1024', '1024x768', '768x1024', '1280x720', '720x1280', '1280x1280'];

const isDefaultOf = (models: ModelEntry[], m: ModelEntry) => m === (models.find((x) => x.traits.includes('default')) ?? models[0]);

function sizesOf(m: ModelEntry): string[] {
  const l = imageLimits(m);
  if (l.pricedSizes) return l.pricedSizes;
  const fits = (s: string) => {
    const [w, h] = s.split('x').map(Number);
    return w % l.widthHeightDivisor === 0 && h % l.widthHeightDivisor === 0 && w <= l.maxSide && h <= l.maxSide;
  };
  const out = SIZES.filter(fits);
  const fallback = `${l.defaultWidth}x${l.defaultHeight}`;
  return out.includes(fallback) ? out : [fallback, ...out];
}

export function imageModelToApp(m: ModelEntry, isDefault: boolean): AppImageModel {
  const l = imageLimits(m);
  const kind = KINDS[m.type];
  const generate = kind === 'generate';
  return {
    id: m.id,
    name: m.name,
    description: m.description ?? null,
    demo: m.demo ?? false,
    kind,
    isDefault,
    perImageUsd: m.pricing.per_image_usd ?? null,
    perStepUsd: generate ? (m.pricing.per_image_step_usd ?? null) : null,
    promptCharacterLimit: generate ? l.promptCharacterLimit : 0,
    maxVariants: generate ? l.maxVariants : 1,
    negativePrompt: generate && l.negativePrompt,
    defaultSteps: generate ? l.steps.default : 0,
    aspectRatios: generate ? [...l.aspectRatios] : [],
    resolutions: generate && l.aspectRatios.length ? [...l.resolutions] : [],
    defaultResolution: generate && l.aspectRatios.length && l.resolutions.length ? l.defaultResolution : null,
    sizes: generate && !l.aspectRatios.length ? sizesOf(m) : [],
    defaultSize: `${l.defaultWidth}x${l.defaultHeight}`,
    maxScale: kind === 'upscale' ? l.maxScale : 0,
    maskRefusal: kind === 'edit' ? maskRefusal(m) : null,
  };
}

/** The models the image mode offers, each kind's default marked. */
export function imageModelsOf(cat: Catalogue): AppImageModel[] {
  const out: AppImageModel[] = [];
  for (const type of Object.keys(KINDS)) {
    const ofType = cat.models.filter((m) => m.type === type);
    for (const m of ofType) out.push(imageModelToApp(m, isDefaultOf(ofType, m)));
  }
  return out;
}

export const imageFilePath = (id: string) => `/api/app/images/${encodeURIComponent(id)}/file`;

export function toAppImage(i: StoredImage, cat: Catalogue): AppImage {
  const model = cat.byId.get(i.modelId);
  const p = i.params;
  return {
    id: i.id,
    action: i.action,
    sourceId: i.sourceId,
    conversationId: i.conversationId,
    messageId: i.messageId,
    model: i.modelId,
    modelName: model?.name ?? i.modelId,
    demo: model?.demo ?? false,
    prompt: i.prompt,
    negativePrompt: p.negativePrompt ?? null,
    style: p.style ?? null,
    seed: i.seed,
    variant: p.variant ?? 0,
    variants: p.variants ?? 1,
    width: i.width,
    height: i.height,
    contentType: i.contentType,
    bytes: i.bytes,
    costUsd: i.costUsd / 1e6,
    costDiem: i.costDiem / 1e6,
    createdAt: i.createdAt,
    url: imageFilePath(i.id),
    downloadUrl: `${imageFilePath(i.id)}?download=1`,
  };
}

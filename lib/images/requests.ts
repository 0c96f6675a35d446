// The request bodies of the image endpoints (the public API's shapes, media-api.md §1), validated strictly: an
// unknown field is a 400 that names it. These are the model-independent bounds; the model's own limits (prompt
// length, sizes, steps, variants, input images) are checked in plan.ts once the model is known. Multipart forms are
// turned into the same shapes first (fromForm): text fields arrive as strings and are read as the JSON types.
import { z } from 'zod';

export const IMAGE_FORMATS = ['jpeg', 'png', 'webp'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

/** An input image: base64, a data: URL or an http(s) URL (JSON), or the bytes of an uploaded file (multipart). */
export const imageInput = z.union([z.string().min(1, 'must not be empty'), z.instanceof(Buffer)], {
  error: 'must be a base64 string, a data: URL, an http(s) URL or an uploaded file',
});
export type ImageInput = z.infer<typeof imageInput>;

const SEED_BOUND = 999_999_999;

/** POST /image/generate. */
export const generateRequest = z
  .strictObject({
    model: z.string().min(1),
    prompt: z.string().min(1, 'prompt must not be empty').max(7500),
    negative_prompt: z.string().max(7500).optional(),
    width: z.number().int().positive().max(1280).optional(),
    height: z.number().int().positive().max(1280).optional(),
    format: z.enum(IMAGE_FORMATS).default('webp'),
    return_binary: z.boolean().default(false),
    variants: z.number().int().min(1).max(4).default(1),
    seed: z.number().int().min(-SEED_BOUND).max(SEED_BOUND).optional(),
    cfg_scale: z.number().gt(0).max(20).optional(),
    steps: z.number().int().min(1).optional(),
    style_preset: z.string().min(1).optional(),
    safe_mode: z.boolean().default(true),
    hide_watermark: z.boolean().default(false),
    embed_exif_metadata: z.boolean().default(false),
    lora_strength: z.number().int().min(0).max(100).optional(),
    aspect_ratio: z.string().min(1).max(16).optional(),
    resolution: z.string().min(1).max(10).optional(),
    quality: z.enum(['low', 'medium', 'high']).optional(),
    enable_web_search: z.boolean().optional(),
    enhance_prompt: z.boolean().optional(),
    disable_prompt_optimization_thinking: z.boolean().optional(),
    style_references: z.array(z.unknown()).optional(),
    inpaint: z.unknown().optional(),
  })
  .superRefine((r, c) => {
    if (r.return_binary && r.variants > 1) {
      c.addIssue({ code: 'custom', path: ['variants'], message: 'variants above 1 need return_binary=false (one binary body holds one image)' });
    }
  });
export type GenerateRequest = z.output<typeof generateRequest>;

export const OPENAI_SIZES = ['auto', '256x256', '512x512', '1024x1024', '1536x1024', '1024x1536', '1792x1024', '1024x1792'] as const;

// The OpenAI form: optional fields may also be null, as OpenAI's own API takes them.
const nullish = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);

/** POST /images/generations (OpenAI's shape). Fields OpenAI has and this API does not use are accepted and ignored. */
export const openaiGenerationsRequest = z.strictObject({
  prompt: z.string().min(1, 'prompt must not be empty').max(1500),
  model: nullish(z.string().min(1)),
  n: nullish(z.number().int().min(1).max(1, 'n must be 1: one image per request')),
  size: nullish(z.enum(OPENAI_SIZES)),
  output_format: nullish(z.enum(IMAGE_FORMATS)),
  response_format: nullish(z.enum(['b64_json', 'url'])),
  moderation: nullish(z.enum(['low', 'auto'])),
  stream: nullish(z.literal(false, { error: 'streaming image generation is not supported' })),
  // Accepted for compatibility and ignored.
  background: z.unknown().optional(),
  quality: z.unknown().optional(),
  style: z.unknown().optional(),
  output_compression: z.unknown().optional(),
  partial_images: z.unknown().optional(),
  user: z.unknown().optional(),
});
export type OpenAIGenerationsRequest = z.output<typeof openaiGenerationsRequest>;

const editFields = {
  prompt: z.string().min(1, 'prompt must not be empty').max(32_768),
  model: z.string().min(1).optional(),
  /** Deprecated alias of model. */
  modelId: z.string().min(1).optional(),
  aspect_ratio: z.string().min(1).max(16).optional(),
  resolution: z.string().min(1).max(10).optional(),
  output_format: z.enum(['jpeg', 'jpg', 'png', 'webp']).optional(),
  safe_mode: z.boolean().default(true),
  quality: z.enum(['low', 'medium', 'high']).optional(),
  enhance_prompt: z.boolean().optional(),
  disable_prompt_optimization_thinking: z.boolean().optional(),
};

/** POST /image/edit. */
export const editRequest = z.strictObject({ ...editFields, image: imageInput });
export type EditRequest = z.output<typeof editRequest>;

/** POST /image/multi-edit: the first image is the base, the rest are layers or masks. */
export const multiEditRequest = z.strictObject({ ...editFields, images: z.array(imageInput).min(1, 'images must hold at least one image') });
export type MultiEditRequest = z.output<typeof multiEditRequest>;

/** POST /image/upscale. `model` is this server's addition (the public API picks the upscaler itself). */
export const upscaleRequest = z.strictObject({
  image: imageInput,
  scale: z.number().min(2).max(4).default(2),
  // The public API clamps creativity to 0–0.02 rather than refusing it; a neural upscaler here adds no detail of its own.
  creativity: z
    .number()
    .default(0.01)
    .transform((v) => Math.min(0.02, Math.max(0, v))),
  model: z.string().min(1).optional(),
});
export type UpscaleRequest = z.output<typeof upscaleRequest>;

/** POST /image/background-remove: `image` or `image_url`, exactly one. */
export const backgroundRemoveRequest = z
  .strictObject({
    image: imageInput.optional(),
    image_url: z.url({ protocol: /^https?$/, error: 'image_url must be an http(s) URL' }).optional(),
    model: z.string().min(1).optional(),
  })
  .superRefine((r, c) => {
    if ((r.image === undefined) === (r.image_url === undefined)) {
      c.addIssue({ code: 'custom', path: r.image === undefined ? ['image'] : ['image_url'], message: 'give either image or image_url (exactly one)' });
    }
  });
export type BackgroundRemoveRequest = z.output<typeof backgroundRemoveRequest>;

/** Multipart text fields read as JSON types: the boolean and number fields by name, everything else as text. */
const BOOLEAN_FIELDS = new Set(['safe_mode', 'enhance_prompt', 'disable_prompt_optimization_thinking']);
const NUMBER_FIELDS = new Set(['scale', 'creativity']);

/**
 * A multipart form as the JSON body of the same endpoint: file fields become Buffers (`fileFields`: a single file; a
 * list field such as multi-edit's `images` also matches `images[]`), text fields keep their text unless the field is
 * a boolean ("true"/"false") or a number. A value that does not read as its type is left as text, so the schema's 400
 * names the field. A text value for a file field is refused by the schema when it must be a file.
 */
export function fromForm(
  form: { fields: Record<string, string>; files: { name: string; bytes: Buffer }[] },
  files: { single?: string[]; list?: string },
): Record<string, unknown> {
  const body = new Map<string, unknown>();
  for (const [name, text] of Object.entries(form.fields)) {
    if (BOOLEAN_FIELDS.has(name) && (text === 'true' || text === 'false')) body.set(name, text === 'true');
    else if (NUMBER_FIELDS.has(name) && text.trim() !== '' && Number.isFinite(Number(text))) body.set(name, Number(text));
    else body.set(name, text);
  }
  for (const f of form.files) {
    const listName = files.list && (f.name === files.list || f.name === `${files.list}[]`) ? files.list : undefined;
    if (listName) {
      const list = (body.get(listName) as unknown[] | undefined) ?? [];
      if (!Array.isArray(list)) body.set(listName, { mixed: 'a text field and files under one name' });
      else body.set(listName, [...list, f.bytes]);
    } else if (files.single?.includes(f.name)) {
      // Twice: a list, which the schema refuses for a single image.
      body.set(f.name, body.has(f.name) ? [body.get(f.name), f.bytes] : f.bytes);
    } else body.set(f.name, f.bytes); // an unexpected file field: the strict schema names it
  }
  return Object.fromEntries(body);
}

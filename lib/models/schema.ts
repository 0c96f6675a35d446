// The model catalogue file format (LAGOON_MODELS), validated at start so a bad file fails loudly before serving.
import { z } from 'zod';
import { audioEngines, audioSpec } from './audio-models.ts';
import { imageEngines, imageSpec } from './image-models.ts';
import { videoEngines, videoSpec } from './video-models.ts';

export const MODEL_TYPES = ['text', 'embedding', 'image', 'tts', 'asr', 'video', 'upscale', 'inpaint', 'background-remove'] as const;
export type ModelType = (typeof MODEL_TYPES)[number];
export const TIERS = ['XS', 'S', 'M', 'L'] as const;
export type Tier = (typeof TIERS)[number];
/** The reasoning_effort values the chat and responses schemas accept. */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

const price = z.number().min(0);

const llamaEngine = z.strictObject({
  kind: z.literal('llama'),
  path: z.string().min(1),
  /** Generate the project's demo GGUF at this path when it is missing. */
  demo: z.boolean().optional(),
  contextSize: z.number().int().positive().optional(),
  sequences: z.number().int().positive().optional(),
  maxQueue: z.number().int().nonnegative().optional(),
  /** The longest a request waits for a free sequence before it is refused (503 with Retry-After). Default 60 s. */
  queueTimeoutMs: z.number().int().positive().optional(),
  threads: z.number().int().positive().optional(),
});

const openaiEngine = z.strictObject({
  kind: z.literal('openai'),
  /**
   * One URL, or several replicas of the same model: a fleet (lib/engines/text/fleet/), spread by least outstanding
   * requests, a conversation kept on the replica holding its prefix, a failing replica ejected and probed back.
   */
  baseUrl: z.union([z.string().url(), z.array(z.string().url()).min(1)]),
  /** How a fleet of several replicas is run; every field has a default. */
  fleet: z
    .strictObject({
      /** Characters of a conversation's start (system prompt + first user turn) that pick its replica; 0: no affinity. */
      prefixChars: z.number().int().nonnegative().optional(),
      /** A conversation leaves its replica when that one's load would pass this times the mean. Default 1.25. */
      loadBound: z.number().min(1).optional(),
      /** Failures in a row that eject a replica (no connection at all ejects at once). Default 3. */
      failuresToEject: z.number().int().positive().optional(),
      /** First ejection, doubled by each failed probe up to maxEjectMs. Defaults 2000 and 30000. */
      ejectMs: z.number().int().positive().optional(),
      maxEjectMs: z.number().int().positive().optional(),
      /** How often to read each replica's vLLM/SGLang /metrics (queue, KV cache); 0: never. Default 5000. */
      loadEveryMs: z.number().int().nonnegative().optional(),
    })
    .optional(),
  /** The upstream's served model name; defaults to the catalogue id. */
  model: z.string().optional(),
  /** Name of the environment variable holding the upstream's API key (never the key itself). */
  apiKeyEnv: z.string().optional(),
  /** Time allowed until the upstream sends response headers. */
  timeoutMs: z.number().int().positive().optional(),
  /** Time allowed for a whole non-streamed completion. */
  totalTimeoutMs: z.number().int().positive().optional(),
  /** Requests sent at once; also the upstream connections per replica, so every admitted request has one. */
  maxConcurrency: z.number().int().positive().optional(),
  /** Requests that may wait for a slot; beyond that, 503 at once. */
  maxQueue: z.number().int().nonnegative().optional(),
  /** The longest a request waits for a slot before it is refused (503 with Retry-After). Default: timeoutMs. */
  queueTimeoutMs: z.number().int().positive().optional(),
  /** How to ask this upstream not to think: vLLM/SGLang chat_template_kwargs, or not at all. */
  thinkingControl: z.enum(['chat_template_kwargs', 'none']).optional(),
});

export const modelEntrySchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]*$/, 'model ids are letters, digits, . _ - /'),
  name: z.string().min(1),
  description: z.string().optional(),
  type: z.enum(MODEL_TYPES),
  tier: z.enum(TIERS),
  privacy: z.enum(['private', 'anonymized']).default('private'),
  demo: z.boolean().optional(),
  pricing: z.strictObject({
    input_usd: price,
    output_usd: price,
    input_diem: price,
    output_diem: price,
    cached_input_usd: price.optional(),
    cached_input_diem: price.optional(),
    // Prices in other units, in USD/DIEM per unit (a *_diem left out is the *_usd price). lib/billing/pricing.ts
    // turns them into micro-units per unit; a model's type names the unit it must price (see the refinement below).
    /** Per image generated. */
    per_image_usd: price.optional(),
    per_image_diem: price.optional(),
    /** Per image at a given size ("1024x1024"), instead of per_image_*. */
    per_image_by_size: z.record(z.string().regex(/^\d+x\d+$/, 'sizes are WIDTHxHEIGHT'), z.strictObject({ usd: price, diem: price.optional() })).optional(),
    /** Per inference step of each image, on top of the per-image price. */
    per_image_step_usd: price.optional(),
    per_image_step_diem: price.optional(),
    /** Per 1,000 characters of speech synthesised. */
    per_1k_characters_usd: price.optional(),
    per_1k_characters_diem: price.optional(),
    /** Per second of audio transcribed or video generated. */
    per_second_usd: price.optional(),
    per_second_diem: price.optional(),
    /** Per RPC credit. */
    per_rpc_credit_usd: price.optional(),
    per_rpc_credit_diem: price.optional(),
    /** Per call (a flat price per request). */
    per_call_usd: price.optional(),
    per_call_diem: price.optional(),
  }),
  context_length: z.number().int().positive(),
  max_completion_tokens: z.number().int().positive().optional(),
  capabilities: z
    .strictObject({
      vision: z.boolean().default(false),
      function_calling: z.boolean().default(false),
      reasoning: z.boolean().default(false),
      logprobs: z.boolean().default(false),
      response_schema: z.boolean().default(false),
      web_search: z.boolean().default(false),
      audio_input: z.boolean().default(false),
      video_input: z.boolean().default(false),
      e2ee: z.boolean().default(false),
      x_search: z.boolean().default(false),
      code: z.boolean().default(false),
      /** The `reasoning_effort` values the model honours (empty: it has no effort control); the first is its default unless `default_reasoning_effort` says. */
      reasoning_efforts: z.array(z.enum(REASONING_EFFORTS)).default([]),
      default_reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
      /** Images (vision) and videos (video_input) one request may carry; defaults: the per-message part caps. */
      max_images: z.number().int().positive().optional(),
      max_videos: z.number().int().positive().optional(),
      /** The weights' number format, as /models reports it. */
      quantization: z.enum(['fp4', 'fp8', 'fp16', 'bf16', 'int8', 'int4', 'not-available']).default('not-available'),
    })
    .prefault({}),
  constraints: z
    .strictObject({
      temperature: z.number().min(0).max(2).optional(),
      top_p: z.number().min(0).max(1).optional(),
    })
    .default({}),
  traits: z.array(z.string()).default([]),
  /** Embedding models: the vector size, the longest input, and whether `dimensions` may shorten the vectors. */
  embedding: z
    .strictObject({
      dimensions: z.number().int().positive(),
      max_input_tokens: z.number().int().positive().optional(),
      /** Matryoshka-trained models keep their meaning when truncated; others must not offer `dimensions`. */
      custom_dimensions: z.boolean().default(false),
    })
    .optional(),
  deprecation: z.strictObject({ date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/), replacement: z.string().optional() }).optional(),
  /** Media models: their limits and capabilities (image-models.ts, audio-models.ts, video-models.ts). */
  image: imageSpec.optional(),
  audio: audioSpec.optional(),
  video: videoSpec.optional(),
  engine: z.discriminatedUnion('kind', [llamaEngine, openaiEngine, ...imageEngines, ...audioEngines, ...videoEngines]),
});

/** The unit price a media model's type requires, when its pricing leaves it out. */
function missingUnitPrice(m: z.infer<typeof modelEntrySchema>): string | undefined {
  const p = m.pricing;
  if (m.type === 'image' && p.per_image_usd === undefined && p.per_image_by_size === undefined) return 'per_image_usd (or per_image_by_size)';
  if ((m.type === 'upscale' || m.type === 'inpaint' || m.type === 'background-remove') && p.per_image_usd === undefined) return 'per_image_usd';
  if (m.type === 'tts' && p.per_1k_characters_usd === undefined) return 'per_1k_characters_usd';
  if ((m.type === 'asr' || m.type === 'video') && p.per_second_usd === undefined) return 'per_second_usd';
  return undefined;
}

export const catalogueSchema = z
  .strictObject({
    /** The operator's default system prompts, placed before the caller's unless the request opts out. */
    system_prompts: z.array(z.string()).default([]),
    models: z.array(modelEntrySchema).min(1),
    compatibility_mapping: z.record(z.string(), z.string()).default({}),
    image_styles: z.array(z.string()).default([]),
  })
  .superRefine((file, c) => {
    // A media model bills in its own unit; a catalogue that left its price out would serve it for free.
    file.models.forEach((m, i) => {
      const missing = missingUnitPrice(m);
      if (missing) c.addIssue({ code: 'custom', path: ['models', i, 'pricing'], message: `a model of type ${m.type} must declare pricing.${missing}` });
      const effort = m.capabilities.default_reasoning_effort;
      if (effort && !m.capabilities.reasoning_efforts.includes(effort)) {
        c.addIssue({ code: 'custom', path: ['models', i, 'capabilities', 'default_reasoning_effort'], message: `"${effort}" is not in reasoning_efforts` });
      }
    });
  });

export type ModelEntry = z.infer<typeof modelEntrySchema>;

/** The most completion tokens a chat may ask of a text model: its declared cap, else 4096 within its context. */
export function completionCap(m: Pick<ModelEntry, 'max_completion_tokens' | 'context_length'>): number {
  return m.max_completion_tokens ?? Math.min(4096, m.context_length);
}
export type CatalogueFile = z.infer<typeof catalogueSchema>;
export type EngineSpec = ModelEntry['engine'];
/** The engines that serve text and embeddings (EngineRegistry); media engines live with their capability. */
export type TextEngineSpec = Extract<EngineSpec, { kind: 'llama' | 'openai' }>;

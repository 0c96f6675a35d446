// GET /models record shape (the reference's ModelResponse), built from catalogue entries.
import { audioWireSpec } from './audio-models.ts';
import { imageWireSpec, isImageModelType } from './image-models.ts';
import { completionCap, type ModelEntry } from './schema.ts';
import { videoWireSpec } from './video-models.ts';

/** What a record says beyond its catalogue entry: the catalogue's date, the owner's name, whether search is on. */
export interface RecordContext {
  created: number;
  ownedBy: string;
  webSearchAvailable: boolean;
  /** Why a model's engine is down (lib/engines/health.ts); undefined while it is available. */
  offlineReason?: (modelId: string) => string | undefined;
  /** The public API's exact shapes (venice wire mode): only documented fields where the document fixes them. */
  publicShapes?: boolean;
}

// The per-message caps of lib/chat/messages.ts: what a vision or video model takes when the catalogue
// states no lower limit.
const DEFAULT_MAX_IMAGES = 10;
const DEFAULT_MAX_VIDEOS = 3;

/** The public capability flags, derived from the catalogue entry (every flag the public records carry). */
function capabilityFlags(m: ModelEntry, webSearchAvailable: boolean) {
  const c = m.capabilities;
  const maxImages = c.vision ? (c.max_images ?? DEFAULT_MAX_IMAGES) : 0;
  const efforts = c.reasoning ? c.reasoning_efforts : [];
  return {
    optimizedForCode: c.code,
    quantization: c.quantization,
    supportsFunctionCalling: c.function_calling,
    supportsAudioInput: c.audio_input,
    supportsReasoning: c.reasoning,
    supportsReasoningEffort: efforts.length > 0,
    reasoningEffortOptions: efforts,
    ...(efforts.length ? { defaultReasoningEffort: c.default_reasoning_effort ?? efforts[0] } : {}),
    supportsResponseSchema: c.response_schema,
    supportsMultipleImages: maxImages > 1,
    maxImages,
    maxVideos: c.video_input ? (c.max_videos ?? DEFAULT_MAX_VIDEOS) : 0,
    supportsVision: c.vision,
    supportsVideoInput: c.video_input,
    supportsWebSearch: c.web_search && webSearchAvailable,
    supportsLogProbs: c.logprobs,
    // This server serves no TEE attestation endpoint, so no model it lists can offer one.
    supportsTeeAttestation: false,
    supportsE2EE: c.e2ee,
    supportsXSearch: c.x_search,
  };
}

/** Token limits: a text model's context and completion cap; an embedding model completes nothing. */
function tokenLimits(m: ModelEntry) {
  if (m.type === 'text') return { availableContextTokens: m.context_length, maxCompletionTokens: completionCap(m) };
  if (m.type === 'embedding') return { availableContextTokens: m.context_length, maxCompletionTokens: 0 };
  return {};
}

export function modelRecord(m: ModelEntry, rc: RecordContext) {
  const offlineReason = rc.offlineReason?.(m.id);
  const pricing: Record<string, unknown> = {
    input: { usd: m.pricing.input_usd, diem: m.pricing.input_diem },
    output: { usd: m.pricing.output_usd, diem: m.pricing.output_diem },
  };
  if (m.pricing.cached_input_usd !== undefined) {
    pricing.cache_input = { usd: m.pricing.cached_input_usd, diem: m.pricing.cached_input_diem ?? m.pricing.cached_input_usd };
  }
  return {
    id: m.id,
    type: m.type,
    object: 'model',
    owned_by: rc.ownedBy,
    created: rc.created,
    ...(m.type === 'text' ? { context_length: m.context_length } : {}),
    model_spec: {
      name: m.name,
      description: m.description ?? '', // a string in the public schema, never null
      modelSource: m.engine.kind === 'llama' ? 'llama.cpp' : 'openai-compatible',
      privacy: m.privacy,
      ...tokenLimits(m),
      tier: m.tier,
      demo: m.demo ?? false,
      beta: false,
      betaModel: false,
      offline: offlineReason !== undefined,
      ...(offlineReason !== undefined ? { offlineReason } : {}),
      traits: m.traits,
      ...(m.type === 'embedding'
        ? {
            embeddingDimensions: m.embedding?.dimensions ?? null,
            maxInputTokens: m.embedding?.max_input_tokens ?? m.context_length,
            supportsCustomDimensions: m.embedding?.custom_dimensions ?? false,
          }
        : {}),
      // A deprecated model keeps answering as itself until its date (no automatic remap to the replacement).
      ...(m.deprecation
        ? {
            deprecation: {
              autoRemap: false,
              date: m.deprecation.date,
              removesAt: m.deprecation.date,
              ...(m.deprecation.replacement ? { replacementModelId: m.deprecation.replacement } : {}),
            },
          }
        : {}),
      capabilities: capabilityFlags(m, rc.webSearchAvailable),
      constraints: {
        temperature: { default: m.constraints.temperature ?? 0.7 },
        top_p: { default: m.constraints.top_p ?? 0.9 },
      },
      pricing,
      ...(m.type === 'tts' || m.type === 'asr' ? audioWireSpec(m, pricing) : {}),
      ...(isImageModelType(m.type) ? imageWireSpec(m, rc.publicShapes ?? false) : {}),
      ...(m.type === 'video' ? videoWireSpec(m, pricing) : {}),
    },
  };
}

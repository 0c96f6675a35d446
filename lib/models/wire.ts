// GET /models record shape (the reference's ModelResponse), built from catalogue entries.
import { audioWireSpec } from './audio-models.ts';
import { imageWireSpec, isImageModelType } from './image-models.ts';
import type { ModelEntry } from './schema.ts';
import { videoWireSpec } from './video-models.ts';

export function modelRecord(m: ModelEntry, created: number, webSearchAvailable: boolean) {
  const c = m.capabilities;
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
    owned_by: 'lagoon',
    created,
    ...(m.type === 'text' ? { context_length: m.context_length } : {}),
    model_spec: {
      name: m.name,
      description: m.description ?? null,
      modelSource: m.engine.kind === 'llama' ? 'llama.cpp' : 'openai-compatible',
      privacy: m.privacy,
      availableContextTokens: m.context_length,
      maxCompletionTokens: m.max_completion_tokens ?? null,
      tier: m.tier,
      demo: m.demo ?? false,
      beta: false,
      offline: false,
      traits: m.traits,
      ...(m.type === 'embedding'
        ? {
            embeddingDimensions: m.embedding?.dimensions ?? null,
            maxInputTokens: m.embedding?.max_input_tokens ?? m.context_length,
            supportsCustomDimensions: m.embedding?.custom_dimensions ?? false,
          }
        : {}),
      ...(m.deprecation ? { deprecation: { date: m.deprecation.date, replacementModelId: m.deprecation.replacement ?? null } } : {}),
      capabilities: {
        optimizedForCode: c.code,
        quantization: 'not-available',
        supportsFunctionCalling: c.function_calling,
        supportsAudioInput: c.audio_input,
        supportsReasoning: c.reasoning,
        supportsResponseSchema: c.response_schema,
        supportsVision: c.vision,
        supportsVideoInput: c.video_input,
        supportsWebSearch: c.web_search && webSearchAvailable,
        supportsLogProbs: c.logprobs,
        supportsE2EE: c.e2ee,
        supportsXSearch: c.x_search,
      },
      constraints: {
        temperature: { default: m.constraints.temperature ?? 0.7 },
        top_p: { default: m.constraints.top_p ?? 0.9 },
      },
      pricing,
      ...(m.type === 'tts' || m.type === 'asr' ? audioWireSpec(m, pricing) : {}),
      ...(isImageModelType(m.type) ? imageWireSpec(m) : {}),
      ...(m.type === 'video' ? videoWireSpec(m, pricing) : {}),
    },
  };
}

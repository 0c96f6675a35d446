// POST /embeddings, framework-free, a metered call like chat: validate → resolve the embedding model → rate limit →
// reserve the worst case → embed → shape → settle on the engine's input-token count. A failure before the vectors
// exist releases the hold, so a refused or failed request costs nothing.
import { ApiError } from '../api/errors.ts';
import { type EmbeddingsRequest, embeddingsRequestSchema } from './schema.ts';
import { parseOrThrow } from '../api/validation.ts';
import type { Amount } from '../billing/money.ts';
import { resolveModel } from '../models/catalogue.ts';
import type { ModelEntry } from '../models/schema.ts';
import { type CallContext, type CallDeps, type CallMeta, engineFailure, startEngine } from '../engines/call.ts';
import { metered } from '../billing/metered.ts';
import { EngineError } from '../engines/text/types.ts';
import { shorten, toBase64 } from '../engines/text/vectors.ts';

export type EmbeddingsDeps = Pick<CallDeps, 'store' | 'ledger' | 'limiter' | 'catalogue' | 'engines' | 'wire'>;

export interface EmbeddingsResult {
  meta: CallMeta;
  body: Record<string, unknown>;
  charged: Amount;
}

/** The embedding model the request names; a model of another type is a 400, not a 404. */
export function embeddingModel(deps: Pick<EmbeddingsDeps, 'catalogue'>, req: Pick<EmbeddingsRequest, 'model' | 'dimensions'>): ModelEntry {
  const model = resolveModel(deps.catalogue, req.model, 'embedding');
  if (model.type !== 'embedding') {
    throw new ApiError('INVALID_MODEL', `Model ${model.id} is a ${model.type} model, not an embedding model`, { param: 'model' });
  }
  if (req.dimensions !== undefined) {
    const spec = model.embedding;
    if (!spec?.custom_dimensions) {
      throw new ApiError('INVALID_REQUEST', `Model ${model.id} does not support custom dimensions; leave out dimensions`, { param: 'dimensions' });
    }
    if (req.dimensions > spec.dimensions) {
      throw new ApiError('INVALID_REQUEST', `dimensions must be at most ${spec.dimensions} for model ${model.id} (got ${req.dimensions})`, {
        param: 'dimensions',
      });
    }
  }
  return model;
}

/**
 * The most input tokens the request can bill: every tokenizer we serve spends at most one token per UTF-8 byte, plus
 * a few special tokens (BOS/EOS, CLS/SEP); an input can bill no more than the model accepts.
 */
export function worstCaseTokens(model: ModelEntry, inputs: string[]): number {
  const cap = model.embedding?.max_input_tokens ?? model.context_length;
  return inputs.reduce((n, text) => n + Math.min(Buffer.byteLength(text) + 4, cap), 0);
}

export async function runEmbeddings(deps: EmbeddingsDeps, ctx: CallContext, rawBody: unknown): Promise<EmbeddingsResult> {
  if (!rawBody || typeof rawBody !== 'object' || Array.isArray(rawBody)) throw new ApiError('INVALID_REQUEST', 'The request body must be a JSON object');
  const req = parseOrThrow(embeddingsRequestSchema, rawBody, deps.wire);
  const model = embeddingModel(deps, req);
  const engine = await startEngine(deps, model);
  if (!engine.embed) throw new ApiError('INVALID_MODEL', `Model ${model.id} is not served by an engine that can embed`, { param: 'model' });
  const inputs = req.input;
  // The worst case is every input at a token a byte; a failure before the vectors exist releases it (metered).
  return metered(deps, ctx, { model, endpoint: '/embeddings', estimate: { promptTokens: worstCaseTokens(model, inputs) } }, async (meter) => {
    let result;
    try {
      result = await engine.embed!(inputs, { requestId: ctx.requestId, model: model.id, dimensions: req.dimensions, signal: ctx.signal });
      if (result.vectors.length !== inputs.length)
        throw new EngineError('failed', `the engine returned ${result.vectors.length} vectors for ${inputs.length} inputs`);
    } catch (e) {
      if (e instanceof EngineError && e.kind === 'context_length') {
        throw new ApiError('CONTEXT_LENGTH_EXCEEDED', e.message, { param: 'input' });
      }
      throw engineFailure(e);
    }

    // An engine that does not count bills the estimate's honest half: about four bytes a token, as for chat output.
    const promptTokens = result.promptTokens ?? inputs.reduce((n, t) => n + Math.max(1, Math.ceil(Buffer.byteLength(t) / 4)), 0);
    const charged = meter.settle({ promptTokens });
    const data = result.vectors.map((v, index) => {
      const vector = shorten(v, req.dimensions);
      return { object: 'embedding', index, embedding: req.encoding_format === 'base64' ? toBase64(vector) : vector };
    });
    return {
      meta: { model, router: engine.router, balancesBefore: meter.before, hold: meter.hold },
      charged,
      body: { object: 'list', model: model.id, data, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } },
    };
  });
}

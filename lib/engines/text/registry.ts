// One engine per catalogue model, created on first use. OpenAI-compatible upstreams get an admission queue here;
// the llama engine queues for its own sequences.
import { tracing } from '../../metrics/tracing.ts';
import { tracedEngine } from './traced.ts';
import { ApiError } from '../../api/errors.ts';
import { recordUpstreamError } from '../../metrics/registry.ts';
import type { ModelEntry } from '../../models/schema.ts';
import { EnginesByModel } from '../by-model.ts';
import { createOpenAIEngine, DEFAULT_TIMEOUT_MS, isUnreachable } from './openai.ts';
import { AdmissionQueue, DEFAULT_MAX_CONCURRENCY, DEFAULT_MAX_QUEUE } from '../queue.ts';
import type { EngineHealth } from '../health.ts';
import type { EmbedOptions, Engine, EngineError, EngineRequest } from './types.ts';

/** `onError` sees each failure and returns what to throw (an unreachable upstream: a 503 and a health recheck). */
function queued(engine: Engine, queue: AdmissionQueue, onError: (e: unknown) => unknown = (e) => e): Engine {
  return {
    router: engine.router,
    countTokens: engine.countTokens?.bind(engine),
    close: engine.close?.bind(engine),
    embed: engine.embed
      ? async (inputs: string[], opts: EmbedOptions) => {
          const release = await queue.acquire(opts.signal);
          try {
            return await engine.embed!(inputs, opts);
          } catch (e) {
            throw onError(e);
          } finally {
            release();
          }
        }
      : undefined,
    async complete(req: EngineRequest) {
      const release = await queue.acquire(req.signal);
      try {
        return await engine.complete(req);
      } catch (e) {
        throw onError(e);
      } finally {
        release();
      }
    },
    async *stream(req: EngineRequest) {
      const release = await queue.acquire(req.signal);
      try {
        yield* engine.stream(req);
      } catch (e) {
        throw onError(e);
      } finally {
        release();
      }
    },
  };
}

export class EngineRegistry extends EnginesByModel<Engine> {
  /** Looks up the variable an upstream's `apiKeyEnv` names (Config.catalogueVar: the environment captured at start). */
  private readonly variable: (name: string) => string | undefined;
  /** Engine checks (lib/engines/health.ts): a model whose engine is down is refused here, before any work. */
  private readonly health: EngineHealth | undefined;

  constructor(variable: (name: string) => string | undefined = () => undefined, health?: EngineHealth) {
    super();
    this.variable = variable;
    this.health = health;
    if (health) this.gateWith((id) => health.refusal(id));
  }

  protected async create(model: ModelEntry): Promise<Engine> {
    const engine = await this.make(model);
    return tracing() ? tracedEngine(engine, model.id) : engine;
  }

  private async make(model: ModelEntry): Promise<Engine> {
    const spec = model.engine;
    if (spec.kind !== 'llama' && spec.kind !== 'openai') throw new Error(`model ${model.id}: a ${spec.kind} engine does not serve text`);
    if (spec.kind === 'openai') {
      const apiKey = spec.apiKeyEnv ? this.variable(spec.apiKeyEnv) : undefined;
      if (spec.apiKeyEnv && !apiKey) throw new Error(`model ${model.id}: environment variable ${spec.apiKeyEnv} is not set`);
      // The pool and the admission limit agree: every admitted request has its own upstream connection at once (per
      // replica, since a conversation's prefix may send them all to one), so the header timeout runs from dispatch.
      const concurrency = spec.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
      const engine = createOpenAIEngine({
        baseUrls: Array.isArray(spec.baseUrl) ? spec.baseUrl : [spec.baseUrl],
        model: spec.model ?? model.id,
        apiKey,
        timeoutMs: spec.timeoutMs,
        totalTimeoutMs: spec.totalTimeoutMs,
        thinkingControl: spec.thinkingControl ?? (model.capabilities.reasoning ? 'chat_template_kwargs' : 'none'),
        connections: concurrency,
        name: model.id,
        fleet: spec.fleet,
      });
      const maxWaitMs = spec.queueTimeoutMs ?? spec.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const health = this.health;
      const onError = (e: unknown) => {
        if (!isUnreachable(e)) return e;
        // Still an upstream error for the metrics (the pipeline counts only the EngineErrors it sees).
        recordUpstreamError((e as EngineError).kind);
        health?.suspect(model.id);
        const message = `Model ${model.id} is unavailable: its upstream could not be reached. The server checks it again shortly.`;
        return new ApiError('ENGINE_DOWN', message, undefined, { 'retry-after': '5' });
      };
      return queued(engine, new AdmissionQueue(concurrency, spec.maxQueue ?? DEFAULT_MAX_QUEUE, maxWaitMs), onError);
    }
    // Loaded only when a llama model is served, so deployments without one never load the native addon.
    const { createLlamaEngine } = await import('./llama.ts');
    if (spec.demo) {
      const { ensureDemoGguf } = await import('./llama/demo-model.ts');
      await ensureDemoGguf(spec.path);
    }
    return createLlamaEngine({
      path: spec.path,
      contextSize: spec.contextSize ?? model.context_length,
      maxQueue: spec.maxQueue,
      queueTimeoutMs: spec.queueTimeoutMs,
      threads: spec.threads,
      seqs: spec.sequences,
    });
  }
}

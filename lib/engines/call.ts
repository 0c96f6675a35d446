// What every engine-backed call shares, whichever capability makes it (chat, embeddings, images, audio): the
// dependencies it runs on, its request context, what its answer reports about the model, and the one way an engine is
// started and its failure told to the client.
import { ApiError } from '../api/errors.ts';
import type { WireNames } from '../api/wire.ts';
import type { Principal } from '../auth/keys.ts';
import type { Balances, Hold } from '../billing/ledger.ts';
import type { Ledger } from '../billing/ledger-service.ts';
import type { Store } from '../db/store.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import { causeOf, log } from '../log.ts';
import { recordUpstreamError } from '../metrics/registry.ts';
import type { Catalogue } from '../models/catalogue.ts';
import type { ModelEntry } from '../models/schema.ts';
import type { EngineRegistry } from './text/registry.ts';
import { type Engine, EngineError } from './text/types.ts';

/** The service parts every metered engine call uses. */
export interface CallDeps {
  store: Store;
  ledger: Ledger;
  limiter: RateLimiter;
  catalogue: Catalogue;
  engines: EngineRegistry;
  wire: WireNames;
  /** Private hosts that file, image and page URLs may still be fetched from (Config.fetchAllowHosts). */
  fetchAllowHosts?: string[] | undefined;
}

export interface CallContext {
  principal: Principal;
  /** Our request id (also the CF-RAY header and the usage row's key). */
  requestId: string;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /** Receives headers every response to this request carries from admission on (x-ratelimit-*), errors included. */
  responseHeaders: Record<string, string>;
  /** The request carries E2EE headers: only then does `enable_e2ee` ask for encryption. */
  e2eeHeaders?: boolean;
}

export interface CallMeta {
  model: ModelEntry;
  router: string;
  balancesBefore: Balances;
  /** The credit reserved for the request: the most it can cost. */
  hold: Hold;
}

/** An engine's failure as the client hears it: the cause goes to the log and the metrics, the client gets the code. */
export function engineFailure(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  // The cause stays in the log (and the metrics); the client hears only the code. A client that went away is no
  // engine failure (the engines report it as `aborted …`, or throw the signal's AbortError).
  const aborted = (e as Error | null)?.name === 'AbortError' || (e instanceof EngineError && e.message.startsWith('aborted'));
  if (!(e instanceof EngineError)) {
    if (!aborted) {
      recordUpstreamError('unexpected');
      log.error({ err: e }, 'engine call failed');
    }
    return new ApiError('INFERENCE_FAILED');
  }
  if (!aborted) {
    recordUpstreamError(e.kind);
    log.warn({ kind: e.kind, cause: causeOf(e) }, 'engine call failed');
  }
  switch (e.kind) {
    case 'capacity':
      return new ApiError('MODEL_AT_CAPACITY', undefined, undefined, { 'retry-after': '5' });
    case 'timeout':
      return new ApiError('REQUEST_TIMEOUT');
    case 'bad_request':
      return new ApiError('INVALID_REQUEST', `The model rejected the request: ${e.message}`);
    case 'context_length':
      return new ApiError('CONTEXT_LENGTH_EXCEEDED', undefined, { param: 'messages' });
    default:
      return new ApiError('INFERENCE_FAILED');
  }
}

export async function startEngine(deps: Pick<CallDeps, 'engines'>, model: ModelEntry): Promise<Engine> {
  try {
    return await deps.engines.get(model);
  } catch (e) {
    // The registry's own refusal (an engine known to be down) already names the problem.
    if (e instanceof ApiError) throw e;
    log.error({ model: model.id, err: e }, 'engine failed to start');
    throw new ApiError('INFERENCE_FAILED', `The engine for model ${model.id} could not start`);
  }
}

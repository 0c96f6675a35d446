// Inference from an external OpenAI-compatible API (INFERENCE_BASE_URL), with one key held in the server's
// environment (INFERENCE_API_KEY), both read by lib/config.ts (Config.app.remote). The key is sent upstream only;
// nothing the browser receives is built from it.
import type { WireNames } from '../../api/wire.ts';
import type { RemoteConfig } from '../../config.ts';
import { sseData } from '../../engines/text/sse.ts';
import type { AppError } from '../../wire.ts';
import { chunkEvents, type InferenceClient, InferenceError, type InferenceEvent, retryAfterSeconds } from './inference.ts';
import { log } from '../../log.ts';

export type { RemoteConfig };

/** Error codes for upstream statuses whose body names none. */
const STATUS_CODES: Record<number, string> = {
  400: 'INVALID_REQUEST',
  402: 'INSUFFICIENT_BALANCE',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'INVALID_CONTENT_TYPE',
  429: 'RATE_LIMIT_EXCEEDED',
  500: 'INFERENCE_FAILED',
  503: 'MODEL_AT_CAPACITY',
  504: 'REQUEST_TIMEOUT',
};

const unavailable = (message: string): AppError => ({ code: 'INFERENCE_UNAVAILABLE', status: 503, message });

/** An upstream error response → the AppError shape (our own service's `{error, code}`, or OpenAI's `{error:{message,code}}`). */
export function remoteError(status: number, text: string, retryAfter: string | null): AppError {
  if (status === 401 || status === 403) {
    // The server's own credential was refused: the user can do nothing about it, and must not see details of it.
    log.error(`inference API refused this server's key (HTTP ${status}): ${text.slice(0, 300)}`);
    return unavailable('The inference service refused this server’s credentials. Tell the operator.');
  }
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    /* not JSON: the status speaks for it */
  }
  const nested = body.error && typeof body.error === 'object' ? (body.error as Record<string, unknown>) : undefined;
  const message =
    (typeof body.error === 'string' ? body.error : typeof nested?.message === 'string' ? nested.message : undefined) ??
    `The inference service answered HTTP ${status}`;
  const named = typeof body.code === 'string' ? body.code : undefined;
  const code = named && /^[A-Z][A-Z0-9_]{1,60}$/.test(named) ? named : (STATUS_CODES[status] ?? 'INFERENCE_FAILED');
  const out: AppError = { code, status: status >= 400 && status <= 599 ? status : 502, message: message.slice(0, 1000) };
  const retry = retryAfterSeconds(retryAfter);
  if (retry !== undefined) out.retryAfter = retry;
  return out;
}

/** An upstream's SSE body → inference events, ending at `[DONE]` (the SSE parser is the engines' own). */
export async function* upstreamEvents(body: AsyncIterable<Uint8Array | string>, wire: WireNames): AsyncGenerator<InferenceEvent> {
  for await (const data of sseData(body)) {
    if (data.trim() === '[DONE]') return;
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      continue; // a stray non-JSON line is not an answer
    }
    if (chunk && typeof chunk === 'object') yield* chunkEvents(chunk as Record<string, unknown>, wire);
  }
}

export function remoteClient(cfg: RemoteConfig): InferenceClient {
  const auth = { authorization: `Bearer ${cfg.apiKey}` };
  return {
    mode: 'remote',
    wire: cfg.wire,

    checkSettings() {
      // The remote API judges its own settings; a refusal is stored on the answer.
    },

    async start(_user, body, { signal }) {
      let res: Response;
      try {
        res = await fetch(`${cfg.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify(body),
          signal,
        });
      } catch (e) {
        if (signal.aborted) throw e;
        log.error(`inference API ${cfg.baseUrl} unreachable: ${(e as Error).message}`);
        throw new InferenceError(unavailable('The inference service could not be reached. Try again in a moment.'));
      }
      if (!res.ok || !res.body) {
        const text = await res.text().catch(() => '');
        throw new InferenceError(remoteError(res.status, text.slice(0, 65_536), res.headers.get('retry-after')));
      }
      return { events: upstreamEvents(res.body as unknown as AsyncIterable<Uint8Array>, cfg.wire) };
    },

    async usageOf() {
      return null; // the remote API bills a cut stream itself and does not say what it charged
    },
  };
}

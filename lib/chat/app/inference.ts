// Where the chat app's answers come from: one interface, served in process by this server's own pipeline (local:
// its typed stream events, no SSE text) or by an external OpenAI-compatible API with a server-held key (remote: its
// SSE chunks). Both become the few events a generation needs.
import { isApiError } from '../../api/errors.ts';
import type { WireNames } from '../../api/wire.ts';
import type { User } from '../../users/users.ts';
import type { AppCitation, AppError, AppUsage } from '../../wire.ts';
import { log } from '../../log.ts';

export type InferenceEvent =
  | { type: 'content'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'citations'; citations: AppCitation[] }
  /** The model that answers (a request for the default resolves to a real id). */
  | { type: 'model'; id: string }
  | { type: 'usage'; usage: AppUsage }
  /** An in-band failure after output began: what came before stays. */
  | { type: 'error'; error: AppError }
  /** A fragment of a tool call the model makes (OpenAI's streamed shape: id and name first, then pieces of arguments). */
  | { type: 'tool_call'; index: number; id?: string; name?: string; arguments?: string };

export interface InferenceRun {
  /** Our request id (local runs): the usage row's key. */
  requestId?: string;
  events: AsyncIterable<InferenceEvent>;
}

export interface InferenceClient {
  readonly mode: 'local' | 'remote';
  /** Service-parameter names the backend reads. */
  readonly wire: WireNames;
  /** Refuses settings this backend cannot honour (web search forced on without a provider), before anything is stored. */
  checkSettings(settings: { webSearch?: string }): void;
  /**
   * Starts a streamed completion; fails with InferenceError before any output. `requestId`: the app request's own id
   * (its CF-RAY), which a local run's usage row carries.
   */
  start(user: User, body: Record<string, unknown>, call: { signal: AbortSignal; requestId: string }): Promise<InferenceRun>;
  /** What a run that ended without a usage chunk (stopped, failed midway) was billed, when the backend can tell. */
  usageOf(run: InferenceRun): Promise<AppUsage | null>;
}

/** A turn that failed before output: its AppError is stored on the answer. */
export class InferenceError extends Error {
  readonly error: AppError;
  constructor(error: AppError) {
    super(error.message);
    this.error = error;
  }
}

/** Any failure as the AppError stored on a message; ApiErrors keep their code, status and retry-after. */
export function appErrorOf(e: unknown): AppError {
  if (e instanceof InferenceError) return e.error;
  if (isApiError(e)) {
    const out: AppError = { code: e.code, status: e.status, message: e.message };
    const retry = retryAfterSeconds(e.headers?.['retry-after']);
    if (retry !== undefined) out.retryAfter = retry;
    return out;
  }
  log.error({ err: e }, 'chat generation failed');
  return { code: 'INFERENCE_FAILED', status: 500, message: 'Inference processing failed' };
}

/** Retry-After as seconds (delta-seconds or an HTTP date). */
export function retryAfterSeconds(v: string | null | undefined): number | undefined {
  if (!v) return undefined;
  const n = Number(v);
  if (Number.isFinite(n) && n >= 0) return Math.ceil(n);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

const SAFE_URL = /^https?:\/\//i;

/** Search results (`{title,url,content,date}`) → citations. A URL that is not http(s) is blanked, not dropped, so caret numbers still match. */
export function toCitations(results: unknown): AppCitation[] {
  if (!Array.isArray(results)) return [];
  return results.slice(0, 100).map((r) => {
    const o = (r && typeof r === 'object' ? r : {}) as Record<string, unknown>;
    const url = typeof o.url === 'string' && SAFE_URL.test(o.url) ? o.url.slice(0, 4096) : '';
    const c: AppCitation = { url };
    if (typeof o.title === 'string' && o.title) c.title = o.title.slice(0, 1000);
    if (typeof o.date === 'string' || o.date === null) c.date = o.date === null ? null : (o.date as string).slice(0, 100);
    return c;
  });
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** One parsed chunk of an upstream's stream → events. Only choice 0 is read: the app asks for one answer. */
export function chunkEvents(chunk: Record<string, unknown>, wire: WireNames): InferenceEvent[] {
  const out: InferenceEvent[] = [];
  if (chunk.error) {
    const e = (typeof chunk.error === 'object' ? chunk.error : { message: chunk.error }) as Record<string, unknown>;
    const message = typeof e.message === 'string' ? e.message : 'Inference failed mid-stream';
    out.push({ type: 'error', error: { code: 'INFERENCE_FAILED', status: 500, message } });
    return out;
  }
  if (typeof chunk.model === 'string' && chunk.model) out.push({ type: 'model', id: chunk.model });
  const params = chunk[wire.params] as Record<string, unknown> | undefined;
  if (params && Array.isArray(params.web_search_citations) && params.web_search_citations.length) {
    out.push({ type: 'citations', citations: toCitations(params.web_search_citations) });
  }
  const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
  for (const c of choices as Record<string, unknown>[]) {
    if (num(c?.index) !== 0) continue;
    const delta = (c.delta ?? {}) as Record<string, unknown>;
    if (typeof delta.reasoning_content === 'string' && delta.reasoning_content) out.push({ type: 'reasoning', text: delta.reasoning_content });
    if (typeof delta.content === 'string' && delta.content) out.push({ type: 'content', text: delta.content });
    if (Array.isArray(delta.tool_calls)) {
      for (const t of delta.tool_calls as Record<string, unknown>[]) {
        const fn = (t?.function ?? {}) as Record<string, unknown>;
        out.push({
          type: 'tool_call',
          index: num(t?.index),
          ...(typeof t?.id === 'string' ? { id: t.id } : {}),
          ...(typeof fn.name === 'string' ? { name: fn.name } : {}),
          ...(typeof fn.arguments === 'string' ? { arguments: fn.arguments } : {}),
        });
      }
    }
  }
  const usage = chunk.usage as Record<string, unknown> | undefined;
  if (usage && typeof usage === 'object') {
    const cost = (chunk.cost ?? {}) as Record<string, unknown>;
    const promptTokens = num(usage.prompt_tokens);
    const completionTokens = num(usage.completion_tokens);
    out.push({
      type: 'usage',
      usage: {
        promptTokens,
        completionTokens,
        totalTokens: num(usage.total_tokens) || promptTokens + completionTokens,
        costUsd: num(cost.usd),
        costDiem: num(cost.diem),
      },
    });
  }
  return out;
}

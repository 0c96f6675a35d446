// An E2EE chat at the gateway: everything the gateway does for a chat (key, limits, credit, usage row) on a request
// whose text it cannot read. It checks the headers and the request's shape, holds credit for the sealed text's size
// and max_completion_tokens, forwards the exact bytes to the worker that holds the key, relays the worker's SSE bytes
// unchanged, and settles once with the token counts the worker signed. No body is logged or stored here.
// Protocol: ../shared/reference/e2ee.md; threat model: docs/E2EE.md.
import { ApiError } from '../api/errors.ts';
import { balanceHeaders, modelHeaders } from '../api/headers.ts';
import { bodyToInternal } from '../api/wire-rename.ts';
import { parseOrThrow } from '../api/validation.ts';
import { type Meter, openMeter } from '../billing/metered.ts';
import type { CallContext } from '../engines/call.ts';
import type { E2eeWorkerLink } from '../e2ee/worker-link.ts';
import type { ChatDeps } from './pipeline.ts';
import { parsePublicKey } from '../e2ee/envelope.ts';
import { type SignedUsage, TRAILER, usageText } from '../e2ee/receipt.ts';
import { e2eeEngineParams, readE2eeRequest, sealedTextBytes } from '../e2ee/request.ts';
import { addressOf, signedBy } from '../e2ee/signing.ts';
import { type RequestCtx, principalOf, setBalanceRemaining } from '../http/context.ts';
import type { Reply } from '../http/reply.ts';
import { log } from '../log.ts';
import { resolveModel } from '../models/catalogue.ts';
import type { ModelEntry } from '../models/schema.ts';
import { chatRequestSchema } from './schema.ts';

const header = (ctx: RequestCtx, name: string): string | undefined => {
  const v = ctx.req.headers[`${ctx.headerCtx.wire.headerPrefix}${name}`];
  return Array.isArray(v) ? v[0] : v;
};

/** The model a chat body names, when it names one this server has. */
function modelOf(ctx: RequestCtx, body: Record<string, unknown>): ModelEntry | undefined {
  if (typeof body.model !== 'string') return undefined;
  try {
    return resolveModel(ctx.svc.catalogue, body.model);
  } catch {
    return undefined;
  }
}

/** Whether the request carries the E2EE key headers (`x-service-tee-client-pub-key`, …, in the wire's prefix). */
export const hasE2eeHeaders = (ctx: RequestCtx): boolean => Object.keys(ctx.req.headers).some((h) => h.startsWith(`${ctx.headerCtx.wire.headerPrefix}tee-`));

/**
 * Whether a chat asks for E2EE: the key headers, on a model that has it, and enable_e2ee not turned off (the public
 * API's default with the headers). Without the model's support the plain pipeline answers (and refuses an explicit
 * enable_e2ee: true, lib/chat/prepare.ts).
 */
export function wantsE2ee(ctx: RequestCtx, body: unknown): body is Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  if (!hasE2eeHeaders(ctx)) return false;
  const params = (body as Record<string, unknown>)[ctx.headerCtx.wire.params];
  if (params && typeof params === 'object' && (params as Record<string, unknown>).enable_e2ee === false) return false;
  return modelOf(ctx, body as Record<string, unknown>)?.capabilities.e2ee === true;
}

function checkHeaders(ctx: RequestCtx): { clientKey: string; modelKey: string } {
  const p = ctx.headerCtx.wire.headerPrefix;
  const invalid = (why: string) => new ApiError('INVALID_REQUEST', `Invalid E2EE headers: ${why}`);
  const clientKey = header(ctx, 'tee-client-pub-key') ?? '';
  const modelKey = header(ctx, 'tee-model-pub-key') ?? '';
  const algo = header(ctx, 'tee-signing-algo');
  if (!parsePublicKey(clientKey)) throw invalid(`${p}tee-client-pub-key must be an uncompressed secp256k1 public key (130 hex characters, 04 first)`);
  if (!parsePublicKey(modelKey)) throw invalid(`${p}tee-model-pub-key must be the attested signing_key (130 hex characters, 04 first)`);
  if (algo !== undefined && algo.toLowerCase() !== 'ecdsa') throw invalid(`${p}tee-signing-algo must be ecdsa`);
  return { clientKey: clientKey.toLowerCase(), modelKey: modelKey.toLowerCase() };
}

/**
 * Parses the worker's trailer: its signed token counts, when the signer is the key the client sealed to or, for a
 * request sealed to a stale key, the worker's current one.
 */
async function signedUsage(svc: SealedChatDeps, requestId: string, event: string, modelKey: string): Promise<SignedUsage | undefined> {
  try {
    const u = JSON.parse(event.slice(TRAILER.length)) as SignedUsage;
    if (!Number.isSafeInteger(u.prompt_tokens) || !Number.isSafeInteger(u.completion_tokens) || u.prompt_tokens < 0 || u.completion_tokens < 0)
      return undefined;
    const attested = addressOf(Buffer.from(modelKey, 'hex'));
    const signer = u.address?.toLowerCase() === attested.toLowerCase() ? attested : (await svc.e2ee.key()).signing_address;
    return (await signedBy(signer, usageText(requestId, u), u.signature)) ? u : undefined;
  } catch {
    return undefined;
  }
}

/** What a sealed chat runs on: chat's metering and catalogue, and the link to the worker. */
export interface SealedChatDeps {
  chatDeps: ChatDeps;
  e2ee: E2eeWorkerLink;
}

/** What a sealed chat needs besides the caller: the body as sent (its bytes are signed) and the two keys. */
export interface SealedChatInput {
  body: Record<string, unknown>;
  bytes: Buffer;
  clientKey: string;
  modelKey: string;
  /** The service parameters as read from the body (the wire's word). */
  params: Record<string, unknown>;
}

export interface SealedChatRun {
  model: ModelEntry;
  meter: Meter;
  /** The worker's SSE events for the client, byte for byte, its trailer removed; the settlement runs when they end. */
  events: AsyncGenerator<string>;
}

/** The worker's response split into SSE events (each ends with its blank line). */
async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      pending += decoder.decode(value, { stream: true });
      for (let end = pending.indexOf('\n\n'); end !== -1; end = pending.indexOf('\n\n')) {
        yield pending.slice(0, end + 2);
        pending = pending.slice(end + 2);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * Starts a sealed chat for either API: the request's E2EE rules, the hold, the worker's answer. A refusal before any
 * output releases the hold and throws.
 */
export async function startSealedChat(svc: SealedChatDeps, call: CallContext, input: SealedChatInput): Promise<SealedChatRun> {
  const wire = svc.chatDeps.wire;
  const req = readE2eeRequest(input.body, {
    webSearch: typeof input.params.enable_web_search === 'string' ? input.params.enable_web_search : undefined,
    characterSlug: input.params.character_slug,
    systemPrompt: input.params[wire.includeSystemPrompt] === true,
  });
  const model = resolveModel(svc.chatDeps.catalogue, req.model);
  if (!model.capabilities.e2ee) throw new ApiError('UNSUPPORTED_CONTENT', `Model ${model.id} does not support end-to-end encryption`);
  const params = e2eeEngineParams(req, model);
  const promptBound = sealedTextBytes(req);
  const meter = await openMeter(svc.chatDeps, call, {
    model,
    endpoint: '/chat/completions',
    estimate: { promptTokens: promptBound, completionTokens: params.max_tokens },
  });
  let stream: ReadableStream<Uint8Array>;
  try {
    stream = await svc.e2ee.chat({
      requestId: call.requestId,
      modelId: model.id,
      clientKey: input.clientKey,
      modelKey: input.modelKey,
      body: input.bytes,
      signal: call.signal,
    });
  } catch (e) {
    meter.release();
    throw e;
  }
  async function* events(): AsyncGenerator<string> {
    let trailer: string | undefined;
    let deltas = 0;
    try {
      for await (const event of sseEvents(stream)) {
        if (event.startsWith(TRAILER)) {
          trailer = event;
          continue;
        }
        if (event.includes('"delta":{"content"') || event.includes('"delta":{"reasoning_content"')) deltas++;
        yield event;
      }
    } finally {
      const usage = trailer ? await signedUsage(svc, call.requestId, trailer, input.modelKey) : undefined;
      if (trailer && !usage) log.error({ event: 'e2ee', requestId: call.requestId }, 'the E2EE worker sent usage its key did not sign');
      // Without the worker's count (the client went away, the worker died) the bill is what was delivered: nothing
      // when no delta was, else a token per sealed delta and a quarter of the sealed text's bytes for the prompt.
      if (usage) meter.settle({ promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens });
      else if (deltas === 0) meter.release();
      else meter.settle({ promptTokens: Math.ceil(promptBound / 4), completionTokens: deltas });
    }
  }
  return { model, meter, events: events() };
}

export async function e2eeChatCompletions(ctx: RequestCtx, body: Record<string, unknown>, bytes: Buffer): Promise<Reply> {
  const wire = ctx.headerCtx.wire;
  const { clientKey, modelKey } = checkHeaders(ctx);
  // The body is a chat request like any other (the same 400s), and an E2EE one on top.
  parseOrThrow(chatRequestSchema, bodyToInternal(body, wire), wire);
  const params = (body[wire.params] ?? {}) as Record<string, unknown>;
  const call = { principal: principalOf(ctx), requestId: ctx.requestId, signal: ctx.signal, responseHeaders: ctx.extraHeaders };
  const run = await startSealedChat(ctx.svc, call, { body, bytes, clientKey, modelKey, params });
  const { meter } = run;
  Object.assign(ctx.extraHeaders, modelHeaders(ctx.headerCtx, run.model, 'e2ee-worker'), balanceHeaders(ctx.headerCtx, meter.before), {
    [`${wire.headerPrefix}tee`]: 'true',
    [`${wire.headerPrefix}tee-provider`]: 'none',
  });
  setBalanceRemaining(ctx, meter.before.usd - meter.before.usdHeld - meter.hold.usd);
  return { kind: 'relay', events: run.events };
}

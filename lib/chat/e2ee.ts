// An E2EE chat at the gateway: everything the gateway does for a chat (key, limits, credit, usage row) on a request
// whose text it cannot read. It checks the headers and the request's shape, holds credit for the sealed text's size
// and max_completion_tokens, forwards the exact bytes to the worker that holds the key, relays the worker's SSE bytes
// unchanged, and settles once with the token counts the worker signed. No body is logged or stored here.
// Protocol: ../shared/reference/e2ee.md; threat model: docs/E2EE.md.
import { ApiError } from '../api/errors.ts';
import { balanceHeaders, modelHeaders } from '../api/headers.ts';
import { bodyToInternal } from '../api/wire-rename.ts';
import { parseOrThrow } from '../api/validation.ts';
import { openMeter } from '../billing/metered.ts';
import { parsePublicKey } from '../e2ee/envelope.ts';
import { type SignedUsage, TRAILER, usageText } from '../e2ee/receipt.ts';
import { e2eeEngineParams, readE2eeRequest, sealedTextBytes } from '../e2ee/request.ts';
import { addressOf, signedBy } from '../e2ee/signing.ts';
import { type RequestCtx, principalOf, setBalanceRemaining } from '../http/context.ts';
import { relaySse } from '../http/sse-pipe.ts';
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

/**
 * Whether a chat asks for E2EE: the key headers, on a model that has it, and enable_e2ee not turned off (the public
 * API's default with the headers). Without the model's support the plain pipeline answers (and refuses an explicit
 * enable_e2ee: true, lib/chat/prepare.ts).
 */
export function wantsE2ee(ctx: RequestCtx, body: unknown): body is Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  if (header(ctx, 'tee-client-pub-key') === undefined && header(ctx, 'tee-model-pub-key') === undefined) return false;
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
async function signedUsage(ctx: RequestCtx, event: string, modelKey: string): Promise<SignedUsage | undefined> {
  try {
    const u = JSON.parse(event.slice(TRAILER.length)) as SignedUsage;
    if (!Number.isSafeInteger(u.prompt_tokens) || !Number.isSafeInteger(u.completion_tokens) || u.prompt_tokens < 0 || u.completion_tokens < 0)
      return undefined;
    const attested = addressOf(Buffer.from(modelKey, 'hex'));
    const signer = u.address?.toLowerCase() === attested.toLowerCase() ? attested : (await ctx.svc.e2ee.key()).signing_address;
    return (await signedBy(signer, usageText(ctx.requestId, u), u.signature)) ? u : undefined;
  } catch {
    return undefined;
  }
}

export async function e2eeChatCompletions(ctx: RequestCtx, body: Record<string, unknown>, bytes: Buffer): Promise<void> {
  const { svc } = ctx;
  const wire = ctx.headerCtx.wire;
  const { clientKey, modelKey } = checkHeaders(ctx);
  // The body is a chat request like any other (the same 400s), and an E2EE one on top.
  parseOrThrow(chatRequestSchema, bodyToInternal(body, wire), wire);
  const raw = (body[wire.params] ?? {}) as Record<string, unknown>;
  const req = readE2eeRequest(body, {
    webSearch: typeof raw.enable_web_search === 'string' ? raw.enable_web_search : undefined,
    characterSlug: raw.character_slug,
    systemPrompt: raw[wire.includeSystemPrompt] === true,
  });
  const model = resolveModel(svc.catalogue, req.model);
  const params = e2eeEngineParams(req, model);
  const principal = principalOf(ctx);
  const callCtx = { principal, requestId: ctx.requestId, signal: ctx.signal, responseHeaders: ctx.extraHeaders };
  const promptBound = sealedTextBytes(req);
  const meter = await openMeter(svc.chatDeps, callCtx, {
    model,
    endpoint: '/chat/completions',
    estimate: { promptTokens: promptBound, completionTokens: params.max_tokens },
  });
  let stream: ReadableStream<Uint8Array>;
  try {
    stream = await svc.e2ee.chat({ requestId: ctx.requestId, modelId: model.id, clientKey, modelKey, body: bytes, signal: ctx.signal });
  } catch (e) {
    meter.release();
    throw e;
  }
  Object.assign(ctx.extraHeaders, modelHeaders(ctx.headerCtx, model, 'e2ee-worker'), balanceHeaders(ctx.headerCtx, meter.before), {
    [`${wire.headerPrefix}tee`]: 'true',
    [`${wire.headerPrefix}tee-provider`]: 'none',
  });
  setBalanceRemaining(ctx, meter.before.usd - meter.before.usdHeld - meter.hold.usd);

  let trailer: string | undefined;
  let deltas = 0;
  try {
    await relaySse(
      ctx,
      stream,
      (event) => {
        if (event.startsWith(TRAILER)) return false;
        if (event.includes('"delta":{"content"') || event.includes('"delta":{"reasoning_content"')) deltas++;
        return true;
      },
      (event) => {
        trailer = event;
      },
    );
  } finally {
    const usage = trailer ? await signedUsage(ctx, trailer, modelKey) : undefined;
    if (trailer && !usage) log.error({ event: 'e2ee', requestId: ctx.requestId }, 'the E2EE worker sent usage its key did not sign');
    // Without the worker's count (the client went away, the worker died) the bill is what was delivered: nothing
    // when no delta was, else a token per sealed delta and a quarter of the sealed text's bytes for the prompt.
    if (usage) meter.settle({ promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens });
    else if (deltas === 0) meter.release();
    else meter.settle({ promptTokens: Math.ceil(promptBound / 4), completionTokens: deltas });
  }
}

// GET /crypto/rpc/networks (public) and POST /crypto/rpc/{network} (a key or a signed-in wallet): the JSON-RPC
// proxy of lib/crypto-rpc. The node's answer is relayed byte for byte as application/json (a JSON-RPC error inside
// it is still a 200), with the credits and their USD value, the request id, Idempotent-Replayed on a replay and
// X-Balance-Remaining for wallets.
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { ApiError, isApiError } from '../api/errors.ts';
import { rpcHeaders } from '../api/headers.ts';
import { isJsonContentType, parseJsonText, readBody, tooLarge } from '../http/body.ts';
import { duplicateKey } from './duplicate-keys.ts';
import { logBreach, principalOf, type RequestCtx, setBalanceRemaining, withWalletCredit } from '../http/context.ts';
import { json, raw, type Reply } from '../http/reply.ts';

// Below this size compressing costs more than it saves.
const MIN_COMPRESS_BYTES = 1024;
// In the thread pool: a block or trace answer can be tens of megabytes.
const gzipAsync = promisify(gzip);

export async function rpcNetworks(ctx: RequestCtx): Promise<Reply> {
  return json({ networks: ctx.svc.rpc.networks() });
}

/**
 * The body as sent (it is forwarded unchanged) and parsed; the same 415/413/400s as every JSON body, under the
 * proxy's own size limit (LAGOON_RPC_MAX_BODY_BYTES), which keeps its parse and duplicate scan short on the loop.
 */
async function rawJsonBody(ctx: RequestCtx): Promise<{ raw: Buffer; body: unknown }> {
  const type = ctx.req.headers['content-type'];
  if (!isJsonContentType(type)) throw new ApiError('INVALID_CONTENT_TYPE', `Invalid request content-type: expected application/json, got ${type ?? 'none'}`);
  const max = Math.min(ctx.svc.config.maxBodyBytes, ctx.svc.config.cryptoRpc.maxBodyBytes);
  if (Number(ctx.req.headers['content-length']) > max) throw tooLarge(max);
  const raw = await readBody(ctx.req, max);
  const text = raw.toString('utf8');
  const body = parseJsonText(text);
  const repeated = duplicateKey(text);
  if (repeated !== undefined) {
    throw new ApiError('INVALID_REQUEST', `The body names "${repeated.slice(0, 40)}" twice in one object: send each member once`, {
      param: repeated.slice(0, 40),
    });
  }
  return { raw, body };
}

export async function rpcCall(ctx: RequestCtx): Promise<Reply> {
  const principal = principalOf(ctx);
  const network = ctx.params.network ?? '';
  const key = ctx.req.headers['idempotency-key'];
  const { raw, body } = await rawJsonBody(ctx);
  let result;
  try {
    result = await withWalletCredit(ctx, () =>
      ctx.svc.rpc.call(
        { principal, requestId: ctx.requestId, signal: ctx.signal, responseHeaders: ctx.extraHeaders },
        network,
        raw,
        body,
        Array.isArray(key) ? key.join(',') : key,
      ),
    );
  } catch (e) {
    if (isApiError(e) && e.code === 'RATE_LIMIT_EXCEEDED') logBreach(ctx, `crypto-rpc:${network.slice(0, 64)}`, e);
    throw e;
  }
  Object.assign(ctx.extraHeaders, rpcHeaders(ctx.headerCtx, result.credits, result.costUsd));
  if (result.replayed) ctx.extraHeaders['Idempotent-Replayed'] = 'true';
  setBalanceRemaining(ctx, result.usdAfter);
  return rawJson(ctx, result.body);
}

/** Whether the client takes gzip (listed, and not with q=0). */
const acceptsGzip = (header: string | string[] | undefined): boolean =>
  String(header ?? '')
    .toLowerCase()
    .split(',')
    .some((range) => {
      const [name, ...params] = range.split(';').map((s) => s.trim());
      return name === 'gzip' && !params.some((p) => /^q=0(\.0*)?$/.test(p));
    });

/** JSON text as it is (gzip when the client accepts it and it is worth it, compressed off the event loop). */
async function rawJson(ctx: RequestCtx, text: string): Promise<Reply> {
  let payload = Buffer.from(text, 'utf8');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (payload.length >= MIN_COMPRESS_BYTES && acceptsGzip(ctx.req.headers['accept-encoding'])) {
    payload = await gzipAsync(payload, { level: 5 });
    headers['content-encoding'] = 'gzip';
    headers.vary = 'accept-encoding';
  }
  headers['content-length'] = String(payload.length);
  return raw(headers, payload);
}

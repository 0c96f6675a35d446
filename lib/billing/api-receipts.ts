// GET /billing/receipts/:requestId: the signed receipt of one billed request. An ADMIN key or a signed-in wallet reads
// any of its account's; an INFERENCE key only those of requests it made. GET /.well-known/lagoon-receipt-keys (served
// by lib/http/server.ts) publishes the keys that verify them.
import type { ServerResponse } from 'node:http';
import { principalOf, type RequestCtx } from '../http/context.ts';
import { json, type Reply } from '../http/reply.ts';
import type { Service } from '../service.ts';
import { type ReceiptContext, receiptKeys, signedReceipt } from './receipts.ts';

export function receiptContextOf(svc: Service): ReceiptContext {
  return {
    store: svc.store,
    hashes: svc.receiptHashes,
    rotateMs: svc.config.receiptKeyRotateMs,
    issuer: svc.wallet.url(''),
    pricesOf: (id) => (svc.catalogue.models.find((m) => m.id === id)?.pricing as Record<string, unknown> | undefined) ?? null,
  };
}

export async function receiptRoute(ctx: RequestCtx): Promise<Reply> {
  const p = principalOf(ctx);
  const whole = ctx.wallet !== undefined || p.keyType === 'ADMIN';
  ctx.extraHeaders['cache-control'] = 'no-store';
  return json(await signedReceipt(receiptContextOf(ctx.svc), p.accountId, ctx.params.requestId, whole ? {} : { keyId: p.keyId }));
}

export const RECEIPT_KEYS_PATH = '/.well-known/lagoon-receipt-keys';

/** The JWK set of every receipt key (public; cached a few minutes by clients). */
export async function serveReceiptKeys(svc: Service, res: ServerResponse): Promise<void> {
  const { keys } = await receiptKeys(svc.store, svc.config.receiptKeyRotateMs);
  const body = JSON.stringify({ keys });
  res.writeHead(200, { 'content-type': 'application/jwk-set+json', 'cache-control': 'public, max-age=300', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

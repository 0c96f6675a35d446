// API key management (ADMIN keys): list, create, update, delete, get one; and web3 keys (no key needed: a wallet
// signs a server token and gets an ordinary key on its wallet account, lib/wallet/web3-key.ts).
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { parseOrThrow } from '../api/validation.ts';
import { type CreateKeyBody, createKeyBody, createKeyFrom, DESCRIPTION_MAX, keyPatchFrom, type PatchKeyBody } from '../auth/key-input.ts';
import { type ApiKey, accountKeys, type KeySpending } from '../auth/keys.ts';
import { microsToString } from '../billing/money.ts';
import { issueWeb3Token, redeemWeb3Token } from '../wallet/web3-key.ts';
import { jsonBody, principalOf, type RequestCtx } from '../http/context.ts';
import { json, type Reply } from '../http/reply.ts';
import type { ApiInput } from '../http/route.ts';
import { publicShapes } from '../api/wire.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const usd = (micros: number | null) => (micros === null ? null : micros / 1e6);
const fourPlaces = (micros: number) => (micros / 1e6).toFixed(4);

/** The key object of the reference (list / get / patch). */
export function keyRecord(k: ApiKey, spending: KeySpending | undefined, ours = true) {
  const hasLimits = k.limitUsd !== null || k.limitDiem !== null;
  const week = spending?.week ?? { usd: 0, diem: 0 };
  const period = spending?.period ?? { usd: 0, diem: 0 };
  return {
    id: k.id,
    apiKeyType: k.type,
    description: k.description,
    createdAt: iso(k.createdAt),
    expiresAt: iso(k.expiresAt),
    lastUsedAt: iso(k.lastUsedAt),
    last6Chars: k.last6,
    // vcu: the DIEM allowance's former name, which older clients still read.
    consumptionLimits: { usd: usd(k.limitUsd), diem: usd(k.limitDiem), vcu: usd(k.limitDiem) },
    limitPeriod: k.limitPeriod,
    modelPrivacy: k.modelPrivacy,
    usage: { trailingSevenDays: { usd: fourPlaces(week.usd), diem: fourPlaces(week.diem), vcu: fourPlaces(week.diem) } },
    ...(hasLimits ? { currentPeriodUsage: { usd: microsToString(period.usd), diem: microsToString(period.diem) } } : {}),
    // Lagoon's own field: absent from the public API's shapes.
    ...(ours ? { models: k.allowedModels } : {}),
  };
}

/**
 * With the public API's names, a key takes only the public document's fields: its period list has no WEEK and it has
 * no `models` (Lagoon's extensions), refused as the public API refuses an unknown field.
 */
function publicFieldsOnly(ctx: RequestCtx, body: { models?: unknown; limitPeriod?: string }): void {
  if (!publicShapes(ctx.headerCtx.wire)) return;
  if (body.models !== undefined) throw new ApiError('INVALID_REQUEST', 'Invalid request parameters: Unrecognized key(s): models', { param: 'models' });
  if (body.limitPeriod === 'WEEK') {
    throw new ApiError('INVALID_REQUEST', 'Invalid request parameters: limitPeriod: must be one of EPOCH, MONTH, LIFETIME', { param: 'limitPeriod' });
  }
}

const ours = (ctx: RequestCtx) => !publicShapes(ctx.headerCtx.wire);

export async function listKeys(ctx: RequestCtx): Promise<Reply> {
  const p = principalOf(ctx);
  const keys = accountKeys(ctx.svc.store, p.accountId);
  const [list, spending] = await Promise.all([keys.listActive(), keys.spending()]);
  return json({ object: 'list', data: list.map((k) => keyRecord(k, spending.get(k.id), ours(ctx))) });
}

export async function getKey(ctx: RequestCtx): Promise<Reply> {
  const p = principalOf(ctx);
  const keys = accountKeys(ctx.svc.store, p.accountId);
  const key = await keys.get(ctx.params.id);
  if (!key || key.revokedAt !== null) throw new ApiError('NOT_FOUND', `API key ${ctx.params.id} not found`);
  return json({ data: keyRecord(key, (await keys.spending()).get(key.id), ours(ctx)) });
}

/** The answer to a key creation: the secret, shown this once. */
function createdKey(key: ApiKey, secret: string, withModels: boolean): Reply {
  return json({
    success: true,
    data: {
      id: key.id,
      apiKey: secret,
      apiKeyType: key.type,
      description: key.description,
      expiresAt: iso(key.expiresAt),
      consumptionLimit: { usd: usd(key.limitUsd), diem: usd(key.limitDiem), vcu: usd(key.limitDiem) },
      limitPeriod: key.limitPeriod,
      modelPrivacy: key.modelPrivacy,
      ...(withModels ? { models: key.allowedModels } : {}),
    },
  });
}

export async function createKey(ctx: RequestCtx, { body }: ApiInput<CreateKeyBody, unknown>): Promise<Reply> {
  const p = principalOf(ctx);
  publicFieldsOnly(ctx, body);
  const { key, secret } = await createKeyFrom(ctx.svc.store, p.accountId, body, p.key.memberId);
  return createdKey(key, secret, ours(ctx));
}

export async function web3KeyToken(ctx: RequestCtx): Promise<Reply> {
  ctx.extraHeaders['cache-control'] = 'no-store';
  const { token } = await issueWeb3Token(ctx.svc.store);
  return json({ success: true, data: { token } });
}

// The key fields of POST /api_keys, plus the wallet's proof; the description has a default here.
export const web3KeyBody = createKeyBody.extend({
  address: z.string().min(1).max(100),
  signature: z.string().min(1).max(20_000),
  token: z.string().min(1).max(2_000),
  description: z.string().max(DESCRIPTION_MAX).default('Web3 API Key'),
});

export async function createWeb3Key(ctx: RequestCtx, { body }: ApiInput<z.output<typeof web3KeyBody>, unknown>): Promise<Reply> {
  publicFieldsOnly(ctx, body);
  const { address, signature, token, ...keyBody } = body;
  const wallet = await redeemWeb3Token(ctx.svc.store, ctx.svc.wallet.settings, { address, signature, token });
  const { key, secret } = await createKeyFrom(ctx.svc.store, wallet.accountId, keyBody);
  return createdKey(key, secret, ours(ctx));
}

export async function updateKey(ctx: RequestCtx, { body }: ApiInput<PatchKeyBody, unknown>): Promise<Reply> {
  const p = principalOf(ctx);
  publicFieldsOnly(ctx, body);
  const keys = accountKeys(ctx.svc.store, p.accountId);
  const updated = await keys.update(body.id, keyPatchFrom(body));
  if (!updated) throw new ApiError('INVALID_REQUEST', 'API key not found or expired');
  const data = keyRecord(updated, (await keys.spending()).get(updated.id), ours(ctx));
  // The public document's update answer has no usage (the key's GET has it); the spec's keeps it.
  if (publicShapes(ctx.headerCtx.wire)) delete (data as { usage?: unknown }).usage;
  return json({ success: true, data });
}

/** DELETE takes the id in the query (the public API's form) or, from older clients, in a JSON body. */
export const deleteKeyQuery = z.object({ id: z.string().min(1).optional() });

export async function deleteKey(ctx: RequestCtx, { query }: ApiInput<unknown, z.output<typeof deleteKeyQuery>>): Promise<Reply> {
  const p = principalOf(ctx);
  let id = query.id;
  if (!id && ctx.req.headers['content-length'] && ctx.req.headers['content-length'] !== '0') {
    const body = parseOrThrow(z.strictObject({ id: z.string().min(1) }), await jsonBody(ctx), ctx.svc.config.wire);
    id = body.id;
  }
  if (!id) throw new ApiError('INVALID_REQUEST', 'Give the key to delete as ?id=<key id>', { param: 'id' });
  if (!(await accountKeys(ctx.svc.store, p.accountId).revoke(id))) throw new ApiError('INVALID_REQUEST', 'API key not found or already deleted');
  return json({ success: true });
}

// Wallet endpoints: POST /x402/top-up (x402 payment in, USD credit out), GET /x402/balance/{walletAddress} and
// GET /x402/transactions/{walletAddress} (the signed-in wallet's own), and GET /x402/siwx/challenge (a fresh
// Sign-In-With-X challenge, so a client can sign each request without first provoking a 402). With the public API's
// wire names (`venice`) the bodies carry only the fields its schemas have (no held amount, network or transaction).
import { encodePaymentResponseHeader } from '@x402/core/http';
import { ApiError, isApiError } from '../api/errors.ts';
import { fromMicros } from '../billing/money.ts';
import { namespaceOfAddress, normaliseAddress } from './networks.ts';
import { API_BASE, PAYMENT_HEADERS } from './service.ts';
import type { Wallet } from './wallets.ts';
import { type RequestCtx, walletOf } from '../http/context.ts';
import { json, type Reply } from '../http/reply.ts';
import type { ApiInput } from '../http/route.ts';
import { intParam } from '../api/dash-query.ts';
import { z } from 'zod';
import type { AutoTopUpBody } from './auto-topup.ts';
import type { CancelBody } from './auto-topup-cancel.ts';

function paymentHeader(ctx: RequestCtx): { name: string; value: string } | undefined {
  for (const name of PAYMENT_HEADERS) {
    const value = ctx.req.headers[name];
    if (typeof value === 'string') return { name, value };
  }
  return undefined;
}

/**
 * ?amount=<USD> on a top-up without payment, read as given: its refusals take the x402 codes (INVALID_AMOUNT,
 * AMOUNT_TOO_LOW, …) and, in the public shapes, the document's error layout, so the handler checks it.
 */
export const topUpQuery = {
  read: (url: URL) => ({ amount: url.searchParams.get('amount') ?? undefined }),
  schema: z.object({ amount: z.string().optional() }),
};

/** The amount the offered requirements ask for. */
function requestedAmount(ctx: RequestCtx, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,9}(\.\d{1,6})?$/.test(raw)) throw new ApiError('INVALID_AMOUNT', 'amount must be a number of USD with at most 6 decimals', { param: 'amount' });
  const [whole, frac = ''] = raw.split('.');
  const micros = Number(whole) * 1_000_000 + Number(frac.padEnd(6, '0'));
  const { minTopUp, maxTopUp } = ctx.svc.wallet.settings;
  if (micros < minTopUp) throw new ApiError('AMOUNT_TOO_LOW', `The top-up amount must be at least ${fromMicros(minTopUp)} USD`, { param: 'amount' });
  if (micros > maxTopUp) throw new ApiError('AMOUNT_TOO_HIGH', `The top-up amount must be at most ${fromMicros(maxTopUp)} USD`, { param: 'amount' });
  return micros;
}

/**
 * POST /x402/top-up. With the public API's wire names its errors take the document's layouts: the unpaid 402 is the
 * x402 body alone (`{x402Version, accepts}`), any other refusal `{error: <machine code>, message, details?}`.
 */
export async function topUp(ctx: RequestCtx, { query }: ApiInput<unknown, { amount?: string }>): Promise<Reply> {
  try {
    return await topUpOrThrow(ctx, query.amount);
  } catch (e) {
    if (!ctx.svc.wallet.publicShapes || !isApiError(e) || e.status >= 500) throw e;
    const { x402Version, accepts, details } = e.extra ?? {};
    if (e.status === 402 && accepts !== undefined) return { kind: 'error', err: e, body: { x402Version: x402Version ?? 2, accepts } };
    return { kind: 'error', err: e, body: { error: e.code, message: e.message, ...(details !== undefined ? { details } : {}) } };
  }
}

async function topUpOrThrow(ctx: RequestCtx, amount: string | undefined): Promise<Reply> {
  const header = paymentHeader(ctx);
  if (header === undefined) throw await ctx.svc.wallet.topUpRequired(requestedAmount(ctx, amount));
  let result;
  try {
    result = await ctx.svc.wallet.topUp(header.value);
  } catch (e) {
    // A payment refused at verification or settlement comes back with fresh requirements, as x402 clients expect.
    if (isApiError(e) && e.status === 402) {
      const fresh = await ctx.svc.wallet.topUpRequired().catch(() => undefined);
      if (fresh?.headers) throw new ApiError(e.code, e.message, { ...e.extra, accepts: fresh.extra?.accepts }, { ...fresh.headers, ...e.headers });
    }
    throw e;
  }
  ctx.extraHeaders['PAYMENT-RESPONSE'] = encodePaymentResponseHeader(result.settlement);
  // x402 v1 clients (and the legacy header's) read the receipt under its v1 name.
  if (header.name !== 'payment-signature') ctx.extraHeaders['X-PAYMENT-RESPONSE'] = ctx.extraHeaders['PAYMENT-RESPONSE'];
  const settled = ctx.svc.wallet.publicShapes ? {} : { network: result.settlement.network, transaction: result.settlement.transaction };
  return json({
    success: true,
    data: {
      walletAddress: result.wallet.address,
      amountCredited: fromMicros(result.amount),
      newBalance: fromMicros(result.balance),
      paymentId: result.paymentId,
      ...settled,
    },
  });
}

/** The signed-in wallet, which must be the one named in the path. */
function ownWallet(ctx: RequestCtx): Wallet {
  const raw = ctx.params.walletAddress ?? '';
  const namespace = namespaceOfAddress(raw);
  if (!namespace) throw new ApiError('INVALID_REQUEST', 'walletAddress must be an EVM (0x…) or Solana (base58) address', { param: 'walletAddress' });
  const wallet = walletOf(ctx);
  if (wallet.namespace !== namespace || wallet.address !== normaliseAddress(namespace, raw)) throw new ApiError('X402_WALLET_MISMATCH');
  return wallet;
}

export async function walletBalance(ctx: RequestCtx): Promise<Reply> {
  const wallet = ownWallet(ctx);
  const { usd, held } = await ctx.svc.wallet.spendable(wallet);
  const s = ctx.svc.wallet.settings;
  return json({
    success: true,
    data: {
      walletAddress: wallet.address,
      balanceUsd: fromMicros(usd),
      ...(ctx.svc.wallet.publicShapes ? {} : { heldUsd: fromMicros(held) }),
      canConsume: usd > 0,
      minimumTopUpUsd: fromMicros(s.minTopUp),
      suggestedTopUpUsd: fromMicros(s.suggestedTopUp),
    },
  });
}

export const transactionsQuery = z.object({ limit: intParam(1, 100, 50), offset: intParam(0, 1_000_000, 0) });

export async function walletTransactions(ctx: RequestCtx, { query }: ApiInput<unknown, z.output<typeof transactionsQuery>>): Promise<Reply> {
  const { limit, offset } = query;
  const wallet = ownWallet(ctx);
  const { balance, entries, hasMore } = await ctx.svc.wallet.statement(wallet, { limit, offset });
  const exact = ctx.svc.wallet.publicShapes;
  return json({
    success: true,
    data: {
      walletAddress: wallet.address,
      currentBalance: fromMicros(balance),
      transactions: entries.map((e) => ({
        id: e.id,
        type: e.type,
        amount: fromMicros(e.amount),
        balanceAfter: fromMicros(e.balanceAfter),
        createdAt: new Date(e.createdAt).toISOString(),
        requestId: e.requestId,
        modelId: e.modelId,
        ...(exact ? {} : { transaction: e.transaction, network: e.network, ...(e.auto ? { autoTopUp: true } : {}) }),
      })),
      pagination: { limit, offset, hasMore },
    },
  });
}

export async function siwxChallenge(ctx: RequestCtx): Promise<Reply> {
  ctx.extraHeaders['cache-control'] = 'no-store';
  return json({ success: true, data: await ctx.svc.wallet.challenge(API_BASE) });
}

export const autoTopUpQuery = topUpQuery;

/**
 * GET /x402/auto-top-up: the signed-in wallet's mandate and authorizations, and `toSign`: the requirement to sign
 * each authorization against (our Base offer at ?amount=<USD>, the minimum top-up by default, valid for months).
 */
export async function getAutoTopUp(ctx: RequestCtx, { query }: ApiInput<unknown, { amount?: string }>): Promise<Reply> {
  const wallet = walletOf(ctx);
  const amount = requestedAmount(ctx, query.amount) ?? ctx.svc.wallet.settings.minTopUp;
  const state = await ctx.svc.wallet.autoTopUp(wallet);
  return json({ success: true, data: { ...state, toSign: ctx.svc.wallet.autoTopUpRequirement(amount) ?? null } });
}

/** PUT /x402/auto-top-up: opt in, or replace the mandate (its unused authorizations are discarded). */
export async function putAutoTopUp(ctx: RequestCtx, { body }: ApiInput<AutoTopUpBody, unknown>): Promise<Reply> {
  return json({ success: true, data: await ctx.svc.wallet.setAutoTopUp(walletOf(ctx), body) });
}

/** DELETE /x402/auto-top-up: opt out; the unused authorizations are discarded and listed (to cancel on chain). */
export async function deleteAutoTopUp(ctx: RequestCtx): Promise<Reply> {
  return json({ success: true, data: await ctx.svc.wallet.revokeAutoTopUp(walletOf(ctx)) });
}

/**
 * POST /x402/auto-top-up/cancel: `{ cancellations: [{ nonce, signature }] }`, the wallet's EIP-712
 * CancelAuthorization signatures for discarded authorizations, submitted on chain (the server pays the gas).
 */
export async function cancelAutoTopUps(ctx: RequestCtx, { body }: ApiInput<CancelBody, unknown>): Promise<Reply> {
  return json({ success: true, data: { cancelled: await ctx.svc.wallet.cancelAutoTopUps(walletOf(ctx), body) } });
}

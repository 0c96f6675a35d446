// Crediting a wallet from an x402 payment, exactly once. The payment is checked against our own offer, verified by
// the facilitator, then claimed in the database under its payment key before it is settled: a replay (in sequence,
// concurrently, or on another instance sharing the database) finds the claim and is refused. The credit is written
// in the same transaction that marks the claim settled, and only by the attempt that still holds the claim.
import { randomUUID } from 'node:crypto';
import { encodePaymentResponseHeader } from '@x402/core/http';
import type { SettleResponse, VerifyResponse } from '@x402/core/types';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import type { WalletConfig } from './config.ts';
import { findSettledTransfer } from './evm-settlement.ts';
import type { Facilitator } from './facilitator.ts';
import { type Payment, type PaymentTerms, readPayment } from './payment.ts';
import { ensureWallet, type Wallet } from './wallets.ts';
import { log } from '../log.ts';
import { addEntry } from '../billing/entries.ts';

export interface TopUpResult {
  wallet: Wallet;
  /** Micro-USD credited. */
  amount: number;
  /** The wallet's USD balance after the credit (micro-USD). */
  balance: number;
  paymentId: string;
  settlement: SettleResponse;
}

export interface Claim {
  id: string;
  claimId: string;
}

/**
 * Refuses a payment already settled, or claimed by an attempt still alive. A claim untouched for `staleMs`
 * (WalletConfig.staleClaimMs) belongs to an attempt that died mid-settlement (settling waits at most about a minute),
 * so another attempt may take a top-up's over; on EVM it then finds the earlier settlement on chain instead of paying
 * twice. An `upto` claim (settled after the work) is never taken over: its cap is credited while it is pending, and
 * only the recovery sweep finishes it (upto-recovery.ts), so its payment is refused while it is pending at any age.
 */
async function refuseIfDone(store: Store, p: Payment, now: number, staleMs: number): Promise<void> {
  const row = await store.get<{ status: string; updated_at: number }>('SELECT status, updated_at FROM x402_topups WHERE payment_key = $1', [p.paymentKey]);
  if (row?.status === 'settled') throw new ApiError('PAYMENT_ALREADY_CREDITED');
  if (row?.status === 'pending' && (p.settledAfterWork || now - Number(row.updated_at) < staleMs)) throw new ApiError('PAYMENT_IN_PROGRESS');
}

export async function claim(
  store: Store,
  p: Payment,
  payer: string,
  now: number,
  requestId: string | undefined,
  origin: PaymentOrigin | undefined,
  staleMs: number,
): Promise<Claim> {
  const id = randomUUID();
  const claimId = randomUUID();
  const inserted = await store.run(
    `INSERT INTO x402_topups (id, payment_key, network, asset, payer, amount, status, claim_id, created_at, updated_at, request_id, scheme, origin)
     VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $8, $9, $10, $11) ON CONFLICT (payment_key) DO NOTHING`,
    [id, p.paymentKey, p.requirements.network, p.requirements.asset, payer, p.amount, claimId, now, requestId ?? null, p.scheme, origin ?? null],
  );
  if (inserted === 1) return { id, claimId };
  const retaken = await store.run(
    `UPDATE x402_topups SET status = 'pending', claim_id = $2, updated_at = $3, error = NULL
     WHERE payment_key = $1 AND (status = 'failed' OR (status = 'pending' AND updated_at < $4))`,
    [p.paymentKey, claimId, now, now - staleMs],
  );
  const row = await store.get<{ id: string; status: string }>('SELECT id, status FROM x402_topups WHERE payment_key = $1', [p.paymentKey]);
  if (retaken === 1 && row) return { id: row.id, claimId };
  throw new ApiError(row?.status === 'settled' ? 'PAYMENT_ALREADY_CREDITED' : 'PAYMENT_IN_PROGRESS');
}

export async function markFailed(store: Store, c: Claim, reason: string): Promise<void> {
  await store.run(`UPDATE x402_topups SET status = 'failed', error = $3, updated_at = $4 WHERE id = $1 AND claim_id = $2 AND status = 'pending'`, [
    c.id,
    c.claimId,
    reason.slice(0, 200),
    Date.now(),
  ]);
}

/** Marks the claim settled and credits the wallet in one transaction; undefined when the claim was lost meanwhile. */
async function credit(store: Store, c: Claim, wallet: Wallet, amount: number, txHash: string, origin: PaymentOrigin | undefined): Promise<number | undefined> {
  return store.tx(async (q) => {
    const marked = await q.run(
      `UPDATE x402_topups SET status = 'settled', tx_hash = $3, wallet_id = $4, payer = $5, error = NULL, updated_at = $6
       WHERE id = $1 AND claim_id = $2 AND status = 'pending'`,
      [c.id, c.claimId, txHash, wallet.id, wallet.address, Date.now()],
    );
    if (marked !== 1) return undefined;
    await q.run('UPDATE accounts SET usd = usd + $2 WHERE id = $1', [wallet.accountId, amount]);
    await addEntry(q, {
      accountId: wallet.accountId,
      kind: 'topup',
      usd: amount,
      ref: c.id,
      note: `${origin === 'auto' ? 'auto top-up' : 'x402 payment'} ${txHash}`,
    });
    const row = await q.get<{ usd: number }>('SELECT usd FROM accounts WHERE id = $1', [wallet.accountId]);
    return Number(row?.usd ?? 0);
  });
}

export const reasonOf = (r: { invalidReason?: string; errorReason?: string }) => r.invalidReason ?? r.errorReason ?? 'unknown';

function verificationFailed(v: VerifyResponse): ApiError {
  const reason = reasonOf(v);
  return new ApiError('PAYMENT_VERIFICATION_FAILED', `The payment could not be verified: ${reason}`, { details: { reason } });
}

/** EVM payments whose authorization is already used: credited when the transfer to us is found on chain. */
async function settledElsewhere(cfg: WalletConfig, p: Payment): Promise<string | undefined> {
  if (p.rail !== 'evm' || !p.authorization || !cfg.evm.rpcUrl) return undefined;
  try {
    return await findSettledTransfer(cfg.evm.rpcUrl, { asset: p.requirements.asset, ...p.authorization });
  } catch (e) {
    log.warn(`x402: could not look for an earlier settlement on chain: ${(e as Error).message.split('\n')[0]}`);
    return undefined;
  }
}

const nonceUsed = (reason: string | undefined) => /nonce_already_used/.test(reason ?? '');

/** Who started a payment: undefined, its payer (a top-up or a request paid on the spot); 'auto', an auto top-up. */
export type PaymentOrigin = 'auto';

export interface TopUpDeps {
  store: Store;
  cfg: WalletConfig;
  facilitator: Facilitator;
}

/** A payment read, checked against our offer and verified by the facilitator, not yet claimed or settled. */
export interface VerifiedPayment {
  payment: Payment;
  payer: string;
  verified: VerifyResponse;
  /** An EVM authorization already used on chain (perhaps this very payment, settled by an earlier attempt). */
  onChainAlready: boolean;
}

/** Reads and verifies a payment header; nothing is claimed or moved. Throws a 4xx naming what is wrong. */
export async function verifyPayment(deps: TopUpDeps, header: string, terms?: PaymentTerms): Promise<VerifiedPayment> {
  const { store, cfg, facilitator } = deps;
  const payment = await readPayment(
    header,
    cfg,
    () => facilitator.solanaFeePayer(),
    terms,
    () => facilitator.uptoFacilitator(),
  );
  await refuseIfDone(store, payment, Date.now(), cfg.staleClaimMs);

  let verified: VerifyResponse;
  try {
    verified = await facilitator.verify(payment.payload, payment.requirements);
  } catch (e) {
    log.error({ reason: (e as Error).message.split('\n')[0] }, 'x402: verification failed to run');
    throw new ApiError('PAYMENT_VERIFICATION_FAILED', 'The payment could not be verified right now (the facilitator is unavailable); try again', {
      details: { reason: 'facilitator_unavailable' },
    });
  }
  const onChainAlready = !verified.isValid && payment.rail === 'evm' && nonceUsed(verified.invalidReason);
  if (!verified.isValid && !onChainAlready) throw verificationFailed(verified);
  const payer = payment.payer ?? verified.payer;
  if (!payer) throw new ApiError('PAYMENT_VERIFICATION_FAILED', 'The facilitator did not name the payer', { details: { reason: 'unknown_payer' } });
  return { payment, payer, verified, onChainAlready };
}

/**
 * A payment already settled and credited, as a retry presents it again: its payer and the request it paid for (x402
 * per request). Undefined for a payment not (yet) settled here. Its signature was checked when it was settled: the
 * payment key is the payer's authorization (EVM) or the signed transaction's message (Solana).
 */
export async function spentPayment(
  deps: Pick<TopUpDeps, 'store' | 'cfg' | 'facilitator'>,
  header: string,
  terms?: PaymentTerms,
): Promise<{ rail: Payment['rail']; payer: string; requestId: string | null } | undefined> {
  const payment = await readPayment(
    header,
    deps.cfg,
    () => deps.facilitator.solanaFeePayer(),
    terms,
    () => deps.facilitator.uptoFacilitator(),
  );
  const row = await deps.store.get<{ payer: string; request_id: string | null }>(
    "SELECT payer, request_id FROM x402_topups WHERE payment_key = $1 AND status = 'settled'",
    [payment.paymentKey],
  );
  return row ? { rail: payment.rail, payer: row.payer, requestId: row.request_id } : undefined;
}

export async function topUp(deps: TopUpDeps, header: string): Promise<TopUpResult> {
  return settlePayment(deps, await verifyPayment(deps, header));
}

/**
 * Claims a verified payment, settles it and credits the payer's wallet, exactly once. `requestId`: the request it
 * was paid for (x402 per request), kept with the payment for the wallet's statement; `origin`: 'auto' for an auto
 * top-up (auto-topup.ts), so statements name it.
 */
export async function settlePayment(deps: TopUpDeps, v: VerifiedPayment, requestId?: string, origin?: PaymentOrigin): Promise<TopUpResult> {
  const { store, cfg, facilitator } = deps;
  const { payment, payer, verified, onChainAlready } = v;
  const c = await claim(store, payment, payer, Date.now(), requestId, origin, cfg.staleClaimMs);
  let settlement: SettleResponse;
  if (onChainAlready) {
    const tx = await settledElsewhere(cfg, payment);
    if (!tx) {
      await markFailed(store, c, 'authorization already used, and no payment to us found on chain');
      throw verificationFailed(verified);
    }
    settlement = { success: true, transaction: tx, network: payment.requirements.network, payer, amount: String(payment.amount) };
  } else {
    try {
      settlement = await facilitator.settle(payment.payload, payment.requirements);
    } catch (e) {
      // The outcome is unknown (a timeout may hide a broadcast): the claim stays pending, so a retry of the same
      // payment later finds the settlement instead of paying again.
      log.error({ reason: (e as Error).message.split('\n')[0] }, 'x402: settlement did not complete');
      throw new ApiError('SETTLEMENT_TIMEOUT');
    }
    if (!settlement.success) {
      const tx = nonceUsed(settlement.errorReason) ? await settledElsewhere(cfg, payment) : undefined;
      if (tx) settlement = { success: true, transaction: tx, network: payment.requirements.network, payer, amount: String(payment.amount) };
      else if (settlement.errorReason === 'settlement_pending') throw new ApiError('SETTLEMENT_TIMEOUT');
      else {
        await markFailed(store, c, reasonOf(settlement));
        throw new ApiError(
          'SETTLEMENT_FAILED',
          `The payment could not be settled: ${reasonOf(settlement)}`,
          { details: { reason: reasonOf(settlement) } },
          {
            'PAYMENT-RESPONSE': encodePaymentResponseHeader(settlement),
          },
        );
      }
    }
  }
  const wallet = await ensureWallet(store, payment.rail === 'evm' ? 'eip155' : 'solana', payer);
  const balance = await credit(store, c, wallet, payment.amount, settlement.transaction, origin);
  if (balance === undefined) throw new ApiError('PAYMENT_ALREADY_CREDITED');
  return { wallet, amount: payment.amount, balance, paymentId: c.id, settlement };
}

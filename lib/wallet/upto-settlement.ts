// x402's own EVM `upto` for a request paid on the spot (per-request.ts): the payer authorised a cap (Permit2), the
// facilitator verified it, and only what the work used is settled, after the work.
//
// The work holds its worst case against the wallet's balance like any other, so the cap is credited provisionally
// when the payment is claimed (a ledger entry, under the claim: a replay, concurrent or on another instance, finds the
// claim and is refused) and the request's hold sets it aside at once. After the work, what it was charged is settled
// on chain and the rest of the cap is taken back, in the transaction that marks the claim settled at that amount;
// work that produced nothing takes the whole cap back and lets the claim go (nothing moved, so the authorisation may
// still pay for another request). A settlement that fails takes the cap back too; the charge then stays on the
// wallet as a debt. A settlement whose outcome is unknown (a timeout) leaves the claim pending and the provisional
// credit in place, as top-ups leave theirs.
import type { SettleResponse } from '@x402/core/types';
import { encodePaymentResponseHeader } from '@x402/core/http';
import { ApiError } from '../api/errors.ts';
import { addEntry } from '../billing/entries.ts';
import type { Store } from '../db/store.ts';
import { log } from '../log.ts';
import { type Claim, claim, reasonOf, type TopUpDeps, type VerifiedPayment } from './topup.ts';
import { ensureWallet, type Wallet } from './wallets.ts';

export interface UptoTab {
  /** Settles `used` micro-USD (at most the cap) on chain and keeps that much of the provisional credit. */
  settle(used: number): Promise<SettleResponse>;
  /** The work used nothing: the provisional credit goes and the claim is let go. */
  release(): Promise<void>;
}

/** Takes the provisional credit back (all of it, or the unused part), under the claim; false when the claim was lost. */
async function takeBack(
  store: Store,
  c: Claim,
  wallet: Wallet,
  usd: number,
  done: { status: 'settled' | 'failed'; amount?: number; tx?: string; error?: string },
) {
  return store.tx(async (q) => {
    const marked = await q.run(
      `UPDATE x402_topups SET status = $3, amount = COALESCE($4, amount), tx_hash = $5, error = $6, updated_at = $7
       WHERE id = $1 AND claim_id = $2 AND status = 'pending'`,
      [c.id, c.claimId, done.status, done.amount ?? null, done.tx || null, done.error?.slice(0, 200) ?? null, Date.now()],
    );
    if (marked !== 1) return false;
    if (usd > 0) {
      await q.run('UPDATE accounts SET usd = usd - $2 WHERE id = $1', [wallet.accountId, usd]);
      await addEntry(q, {
        accountId: wallet.accountId,
        kind: 'correction',
        usd: -usd,
        ref: c.id,
        note: `x402 upto: ${done.error ?? 'the unused part of the cap'}`,
      });
    }
    return true;
  });
}

/** Claims a verified `upto` payment and credits its cap provisionally; the tab settles or releases it after the work. */
export async function authorizeUpto(deps: TopUpDeps, v: VerifiedPayment, requestId: string): Promise<UptoTab> {
  const { store, facilitator } = deps;
  const { payment, payer } = v;
  const cap = payment.amount;
  const c = await claim(store, payment, payer, Date.now(), requestId, undefined);
  const wallet = await ensureWallet(store, 'eip155', payer);
  const credited = await store.tx(async (q) => {
    const marked = await q.run(`UPDATE x402_topups SET wallet_id = $3, payer = $4 WHERE id = $1 AND claim_id = $2 AND status = 'pending'`, [
      c.id,
      c.claimId,
      wallet.id,
      wallet.address,
    ]);
    if (marked !== 1) return false;
    await q.run('UPDATE accounts SET usd = usd + $2 WHERE id = $1', [wallet.accountId, cap]);
    await addEntry(q, { accountId: wallet.accountId, kind: 'topup', usd: cap, ref: c.id, note: 'x402 upto: the cap, until the work is settled' });
    return true;
  });
  if (!credited) throw new ApiError('PAYMENT_IN_PROGRESS');

  return {
    async settle(used) {
      if (used > cap) throw new Error(`upto: ${used} used of a cap of ${cap}`);
      let settlement: SettleResponse;
      try {
        settlement = await facilitator.settle(payment.payload, { ...payment.requirements, amount: String(used) });
      } catch (e) {
        log.error({ reason: (e as Error).message.split('\n')[0] }, 'x402: upto settlement did not complete');
        throw new ApiError('SETTLEMENT_TIMEOUT');
      }
      if (!settlement.success) {
        if (settlement.errorReason === 'settlement_pending') throw new ApiError('SETTLEMENT_TIMEOUT');
        const reason = reasonOf(settlement);
        await takeBack(store, c, wallet, cap, { status: 'failed', error: `settlement failed: ${reason}` });
        throw new ApiError(
          'SETTLEMENT_FAILED',
          `The payment could not be settled: ${reason}`,
          { details: { reason } },
          {
            'PAYMENT-RESPONSE': encodePaymentResponseHeader(settlement),
          },
        );
      }
      if (!(await takeBack(store, c, wallet, cap - used, { status: 'settled', amount: used, tx: settlement.transaction })))
        throw new ApiError('PAYMENT_ALREADY_CREDITED');
      return settlement;
    },
    async release() {
      await takeBack(store, c, wallet, cap, { status: 'failed', error: 'the request used nothing' });
    },
  };
}

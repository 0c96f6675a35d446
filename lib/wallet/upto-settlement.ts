// x402's own EVM `upto` for a request paid on the spot (per-request.ts): the payer authorised a cap (Permit2), the
// facilitator verified it, and only what the work used is settled, after the work.
//
// The work holds its worst case against the wallet's balance like any other, so the cap is credited provisionally
// when the payment is claimed: the claim, the payment (payload and requirements, sealed under the secrets key when
// there is one) and the credit's ledger entry are written in one transaction, so a pending claim with its payment
// kept always has its cap credited. A replay, concurrent or on another instance, finds the claim and is refused; the
// request's hold sets the cap aside at once. After the work, what it was charged is settled on chain and the rest of
// the cap is taken back, in the transaction that marks the claim settled at that amount; work that produced nothing
// takes the whole cap back and lets the claim go (nothing moved, so the authorisation may still pay for another
// request). A settlement that fails takes the cap back too; the charge then stays on the wallet as a debt.
//
// While the work runs its claim is touched every quarter of LAGOON_X402_STALE_CLAIM_MS, so a claim left untouched
// longer belongs to a process that died (or a settlement whose outcome is unknown, a timeout): such a claim is never
// taken over by a replay of its payment, but finished by the recovery sweep (upto-recovery.ts) from what was kept.
import { randomUUID } from 'node:crypto';
import type { SettleResponse } from '@x402/core/types';
import { encodePaymentResponseHeader } from '@x402/core/http';
import { ApiError } from '../api/errors.ts';
import { addEntry } from '../billing/entries.ts';
import type { SecretBox } from '../db/secret-box.ts';
import type { Store } from '../db/store.ts';
import { log } from '../log.ts';
import type { Payment } from './payment.ts';
import { type Claim, reasonOf, type TopUpDeps, type VerifiedPayment } from './topup.ts';
import { ensureWallet } from './wallets.ts';

export interface UptoTab {
  /** Settles `used` micro-USD (at most the cap) on chain and keeps that much of the provisional credit. */
  settle(used: number): Promise<SettleResponse>;
  /** The work used nothing: the provisional credit goes and the claim is let go. */
  release(): Promise<void>;
  /** Stops touching the claim: the recovery sweep finishes it once it is stale. */
  leave(): void;
}

export interface UptoDeps extends TopUpDeps {
  /** Seals the kept payment (LAGOON_SECRETS_KEY, or the data dir's key); undefined: kept as it is. */
  secrets: SecretBox | undefined;
}

/** What is kept with a pending claim to finish it: the payment as the facilitator takes it. */
export interface KeptPayment {
  payload: Payment['payload'];
  requirements: Payment['requirements'];
}

/** The sealing context: a sealed payment copied onto another row does not open there. */
const sealContext = (id: string) => `x402-upto:${id}`;

export const keepPayment = (secrets: SecretBox | undefined, id: string, p: KeptPayment): string => {
  const text = JSON.stringify({ payload: p.payload, requirements: p.requirements });
  return secrets ? secrets.seal(text, sealContext(id)) : text;
};

export function keptPayment(secrets: SecretBox | undefined, id: string, stored: string): KeptPayment {
  if (stored.startsWith('{')) return JSON.parse(stored) as KeptPayment;
  if (!secrets) throw new Error('the payment is sealed and no secrets key is configured');
  return JSON.parse(secrets.open(stored, sealContext(id))) as KeptPayment;
}

/**
 * Takes the provisional credit back (all of it, or the unused part) and finishes the claim, in one transaction and
 * only while `claimId` still holds it; false when the claim was lost. The kept payment is cleared with it.
 */
export async function finishClaim(
  store: Store,
  c: Claim,
  accountId: string,
  usd: number,
  done: { status: 'settled' | 'failed'; amount?: number; tx?: string; error?: string },
): Promise<boolean> {
  return store.tx(async (q) => {
    const marked = await q.run(
      `UPDATE x402_topups SET status = $3, amount = COALESCE($4, amount), tx_hash = $5, error = $6, updated_at = $7, payment = NULL
       WHERE id = $1 AND claim_id = $2 AND status = 'pending'`,
      [c.id, c.claimId, done.status, done.amount ?? null, done.tx || null, done.error?.slice(0, 200) ?? null, Date.now()],
    );
    if (marked !== 1) return false;
    if (usd > 0) {
      await q.run('UPDATE accounts SET usd = usd - $2 WHERE id = $1', [accountId, usd]);
      await addEntry(q, {
        accountId,
        kind: 'correction',
        usd: -usd,
        ref: c.id,
        note: `x402 upto: ${done.error ?? 'the unused part of the cap'}`,
      });
    }
    return true;
  });
}

/** Keeps the claim fresh while its holder works on it, so the recovery sweep leaves it alone; returns the stop. */
export function touchWhileOpen(store: Store, c: Claim, staleMs: number): () => void {
  const timer = setInterval(
    () => {
      store
        .run(`UPDATE x402_topups SET updated_at = $3 WHERE id = $1 AND claim_id = $2 AND status = 'pending'`, [c.id, c.claimId, Date.now()])
        .catch((err) => log.warn({ err }, 'x402: could not touch an upto claim'));
    },
    Math.max(50, Math.floor(staleMs / 4)),
  );
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Claims the payment, keeps it, and credits the cap, in one transaction: a payment settled or claimed (at any age:
 * only the recovery sweep finishes a pending `upto` claim) is refused; one let go (failed: nothing moved) is claimed
 * again, for this request.
 */
async function claimAndCredit(deps: UptoDeps, p: Payment, payer: string, requestId: string): Promise<{ claim: Claim; accountId: string }> {
  const { store, secrets } = deps;
  const wallet = await ensureWallet(store, 'eip155', payer);
  const claimId: string = randomUUID();
  const now = Date.now();
  const id = await store.tx(async (q): Promise<string> => {
    const fresh = randomUUID();
    const inserted = await q.run(
      `INSERT INTO x402_topups (id, payment_key, network, asset, payer, amount, status, claim_id, created_at, updated_at, request_id, scheme, wallet_id, payment)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $8, $9, $10, $11, $12) ON CONFLICT (payment_key) DO NOTHING`,
      [
        fresh,
        p.paymentKey,
        p.requirements.network,
        p.requirements.asset,
        wallet.address,
        p.amount,
        claimId,
        now,
        requestId,
        p.scheme,
        wallet.id,
        keepPayment(secrets, fresh, p),
      ],
    );
    let rowId: string = fresh;
    if (inserted !== 1) {
      const row = await q.get<{ id: string; status: string }>(`SELECT id, status FROM x402_topups WHERE payment_key = $1${store.forUpdate}`, [p.paymentKey]);
      if (row?.status !== 'failed') throw new ApiError(row?.status === 'settled' ? 'PAYMENT_ALREADY_CREDITED' : 'PAYMENT_IN_PROGRESS');
      rowId = row.id;
      await q.run(
        `UPDATE x402_topups SET status = 'pending', claim_id = $2, updated_at = $3, error = NULL, request_id = $4, wallet_id = $5, payer = $6, amount = $7, payment = $8
         WHERE id = $1 AND status = 'failed'`,
        [rowId, claimId, now, requestId, wallet.id, wallet.address, p.amount, keepPayment(secrets, rowId, p)],
      );
    }
    await q.run('UPDATE accounts SET usd = usd + $2 WHERE id = $1', [wallet.accountId, p.amount]);
    await addEntry(q, { accountId: wallet.accountId, kind: 'topup', usd: p.amount, ref: rowId, note: 'x402 upto: the cap, until the work is settled' });
    return rowId;
  });
  return { claim: { id, claimId }, accountId: wallet.accountId };
}

/** Claims a verified `upto` payment and credits its cap provisionally; the tab settles or releases it after the work. */
export async function authorizeUpto(deps: UptoDeps, v: VerifiedPayment, requestId: string): Promise<UptoTab> {
  const { store, facilitator, cfg } = deps;
  const { payment } = v;
  const cap = payment.amount;
  const { claim: c, accountId } = await claimAndCredit(deps, payment, v.payer, requestId);
  const stopTouching = touchWhileOpen(store, c, cfg.staleClaimMs);

  return {
    async settle(used) {
      try {
        if (used > cap) throw new Error(`upto: ${used} used of a cap of ${cap}`);
        let settlement: SettleResponse;
        try {
          settlement = await facilitator.settle(payment.payload, { ...payment.requirements, amount: String(used) });
        } catch (e) {
          // The outcome is unknown: the claim stays pending, untouched from now on, and the recovery sweep finishes it.
          log.error({ reason: (e as Error).message.split('\n')[0] }, 'x402: upto settlement did not complete');
          throw new ApiError('SETTLEMENT_TIMEOUT');
        }
        if (!settlement.success) {
          if (settlement.errorReason === 'settlement_pending') throw new ApiError('SETTLEMENT_TIMEOUT');
          const reason = reasonOf(settlement);
          await finishClaim(store, c, accountId, cap, { status: 'failed', error: `settlement failed: ${reason}` });
          throw new ApiError(
            'SETTLEMENT_FAILED',
            `The payment could not be settled: ${reason}`,
            { details: { reason } },
            {
              'PAYMENT-RESPONSE': encodePaymentResponseHeader(settlement),
            },
          );
        }
        if (!(await finishClaim(store, c, accountId, cap - used, { status: 'settled', amount: used, tx: settlement.transaction })))
          throw new ApiError('PAYMENT_ALREADY_CREDITED');
        return settlement;
      } finally {
        stopTouching();
      }
    },
    async release() {
      try {
        await finishClaim(store, c, accountId, cap, { status: 'failed', error: 'the request used nothing' });
      } finally {
        stopTouching();
      }
    },
    leave: stopTouching,
  };
}

// Auto top-up, the settling: after a charge settles (Ledger.onSettled names the account) and on a sweep, an account
// whose wallet holds a mandate and whose USD balance is below its threshold gets the next signed authorization
// settled through the top-up path (topup.ts: verified by the facilitator, claimed in x402_topups under its payment
// key, settled, credited with a ledger entry in one transaction).
//
// Exactly once, across instances and restarts:
//  - one attempt per wallet at a time: the mandate row is claimed (busy_claim, a lease) by a compare-and-set;
//  - the balance is read again under that claim, after any earlier top-up has committed its credit;
//  - an authorization is taken by a compare-and-set (ready → claimed), and while one is claimed no other is taken:
//    a claimed one left by a dead attempt is settled again first, and the x402_topups claim (or the chain's own
//    "authorization used" with the transfer found on chain) makes that second settlement credit nothing twice.
import { randomUUID } from 'node:crypto';
import { isApiError } from '../api/errors.ts';
import { AccountNudge } from '../billing/account-nudge.ts';
import type { SecretBox } from '../db/secret-box.ts';
import type { Store } from '../db/store.ts';
import { log } from '../log.ts';
import { sealContext, usedInPeriod } from './auto-topup.ts';
import type { WalletConfig } from './config.ts';
import type { Facilitator } from './facilitator.ts';
import { settlePayment, type TopUpResult, verifyPayment } from './topup.ts';
import { isSealed } from '../db/secret-box.ts';

/** One attempt holds a wallet's mandate at most this long (a settlement waits up to a minute for its receipt). */
const LEASE_MS = 3 * 60_000;
/** After a refused settlement (e.g. the wallet lacks the USDC), the wallet is not tried again before this. */
const RETRY_MS = 5 * 60_000;
/** Authorizations this close to their end are not sent (the facilitator wants a few seconds of validity left). */
const EXPIRY_MARGIN_MS = 60_000;
/** Settlements that touched an account are checked together after this short wait. */
const NUDGE_DELAY_MS = 100;

export interface AutoTopUpRunnerDeps {
  store: Store;
  cfg: () => WalletConfig;
  facilitator: () => Promise<Facilitator | undefined>;
  secrets: SecretBox | undefined;
}

interface MandateRow {
  wallet_id: string;
  account_id: string;
  threshold: number;
  amount: number;
  period_cap: number | null;
  period_ms: number | null;
  retry_after: number | null;
}

interface AuthRow {
  id: string;
  nonce: string;
  amount: number;
  valid_before: number;
  payment: string | null;
}

/** What one check did: nothing to do, or an authorization settled (or refused). */
export type AutoTopUpOutcome =
  | { kind: 'none'; why: string }
  | { kind: 'settled'; authorizationId: string; result: TopUpResult }
  | { kind: 'refused'; authorizationId: string; reason: string };

export class AutoTopUpRunner {
  private readonly deps: AutoTopUpRunnerDeps;
  /** Settled accounts, checked together a moment later. */
  private readonly nudges = new AccountNudge(NUDGE_DELAY_MS, (ids) => {
    for (const id of ids) this.track(this.check(id));
  });
  private sweepTimer: NodeJS.Timeout | undefined;
  private readonly running = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(deps: AutoTopUpRunnerDeps) {
    this.deps = deps;
  }

  /** Sweeps every `sweepMs` (restarts, settlements on instances that died before checking), and once now. */
  start(sweepMs = 60_000): void {
    this.stopped = false;
    this.nudges.resume();
    this.sweepTimer = setInterval(() => this.track(this.sweep()), sweepMs);
    this.sweepTimer.unref();
    this.track(this.sweep());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    this.nudges.stop();
    while (this.running.size) await Promise.allSettled([...this.running]);
  }

  /** A charge settled on the account: check it soon, off the request's path (one Set add). */
  nudge(accountId: string): void {
    this.nudges.nudge(accountId);
  }

  /** Waits for the checks under way (tests; a graceful stop). */
  async idle(): Promise<void> {
    while (this.running.size || this.nudges.pending) {
      if (this.running.size) await Promise.allSettled([...this.running]);
      else await new Promise((r) => setTimeout(r, NUDGE_DELAY_MS));
    }
  }

  /** Accounts below their threshold, or with an authorization left claimed, each checked in turn. */
  async sweep(now = Date.now()): Promise<void> {
    const rows = await this.deps.store.all<{ account_id: string }>(
      `SELECT m.account_id FROM auto_topups m JOIN accounts a ON a.id = m.account_id
        WHERE (a.usd < m.threshold AND (m.retry_after IS NULL OR m.retry_after < $1))
           OR EXISTS (SELECT 1 FROM auto_topup_authorizations t WHERE t.wallet_id = m.wallet_id AND t.status = 'claimed')`,
      [now],
    );
    for (const r of rows) {
      if (this.stopped) return;
      await this.check(r.account_id).catch((e) => log.error({ err: e, accountId: r.account_id }, 'auto top-up: checking an account failed'));
    }
  }

  /** Tops the account up once if its mandate says so; at most one attempt per wallet runs anywhere at a time. */
  async check(accountId: string, now = Date.now()): Promise<AutoTopUpOutcome> {
    const { store } = this.deps;
    const m = await store.get<MandateRow>(
      'SELECT wallet_id, account_id, threshold, amount, period_cap, period_ms, retry_after FROM auto_topups WHERE account_id = $1',
      [accountId],
    );
    if (!m) return { kind: 'none', why: 'no mandate' };
    // Cheap look first: most settlements leave the balance above the threshold.
    if (!(await this.due(m, now))) return { kind: 'none', why: 'balance above the threshold' };
    const claim = randomUUID();
    const held = await store.run('UPDATE auto_topups SET busy_claim = $2, busy_until = $3 WHERE wallet_id = $1 AND (busy_until IS NULL OR busy_until < $4)', [
      m.wallet_id,
      claim,
      now + LEASE_MS,
      now,
    ]);
    if (held !== 1) return { kind: 'none', why: 'another attempt is under way' };
    try {
      return await this.underClaim(m.wallet_id, Date.now());
    } finally {
      await store.run('UPDATE auto_topups SET busy_claim = NULL, busy_until = NULL WHERE wallet_id = $1 AND busy_claim = $2', [m.wallet_id, claim]);
    }
  }

  private async balance(accountId: string): Promise<number> {
    const row = await this.deps.store.get<{ usd: number }>('SELECT usd FROM accounts WHERE id = $1', [accountId]);
    return Number(row?.usd ?? 0);
  }

  private async claimed(walletId: string): Promise<AuthRow | undefined> {
    return this.deps.store.get<AuthRow>(
      `SELECT id, nonce, amount, valid_before, payment FROM auto_topup_authorizations WHERE wallet_id = $1 AND status = 'claimed' ORDER BY seq LIMIT 1`,
      [walletId],
    );
  }

  private async due(m: MandateRow, now: number): Promise<boolean> {
    if (await this.claimed(m.wallet_id)) return true;
    if (m.retry_after !== null && Number(m.retry_after) > now) return false;
    return (await this.balance(m.account_id)) < Number(m.threshold);
  }

  private async underClaim(walletId: string, now: number): Promise<AutoTopUpOutcome> {
    const { store } = this.deps;
    // The mandate again, under the claim: it may have been replaced or revoked meanwhile.
    const m = await store.get<MandateRow>(
      'SELECT wallet_id, account_id, threshold, amount, period_cap, period_ms, retry_after FROM auto_topups WHERE wallet_id = $1',
      [walletId],
    );
    const stuck = await this.claimed(walletId);
    if (stuck) return this.settle(walletId, stuck, now);
    if (!m) return { kind: 'none', why: 'no mandate' };
    if (m.retry_after !== null && Number(m.retry_after) > now) return { kind: 'none', why: 'waiting to retry' };
    if ((await this.balance(m.account_id)) >= Number(m.threshold)) return { kind: 'none', why: 'balance above the threshold' };
    if (m.period_cap !== null && m.period_ms !== null) {
      const used = await usedInPeriod(store, walletId, Number(m.period_ms), now);
      if (used + Number(m.amount) > Number(m.period_cap)) return { kind: 'none', why: 'period cap reached' };
    }
    // Expired ones are set aside so the next valid one is taken.
    await store.run(
      `UPDATE auto_topup_authorizations SET status = 'expired', payment = NULL, updated_at = $2 WHERE wallet_id = $1 AND status = 'ready' AND valid_before < $3`,
      [walletId, now, now + EXPIRY_MARGIN_MS],
    );
    const next = await store.get<AuthRow>(
      `SELECT id, nonce, amount, valid_before, payment FROM auto_topup_authorizations WHERE wallet_id = $1 AND status = 'ready' ORDER BY seq LIMIT 1`,
      [walletId],
    );
    if (!next) return { kind: 'none', why: 'no authorization left' };
    const took = await store.run(`UPDATE auto_topup_authorizations SET status = 'claimed', updated_at = $2 WHERE id = $1 AND status = 'ready'`, [next.id, now]);
    if (took !== 1) return { kind: 'none', why: 'taken meanwhile' };
    return this.settle(walletId, next, now);
  }

  private async finish(id: string, status: 'settled' | 'failed' | 'expired' | 'ready', fields: { tx?: string; topupId?: string; error?: string }) {
    const keep = status === 'ready';
    await this.deps.store.run(
      `UPDATE auto_topup_authorizations SET status = $2, tx_hash = $3, topup_id = $4, error = $5, updated_at = $6${keep ? '' : ', payment = NULL'}
       WHERE id = $1 AND status = 'claimed'`,
      [id, status, fields.tx ?? null, fields.topupId ?? null, fields.error?.slice(0, 200) ?? null, Date.now()],
    );
  }

  private async settle(walletId: string, a: AuthRow, now: number): Promise<AutoTopUpOutcome> {
    const { store, secrets } = this.deps;
    const cfg = this.deps.cfg();
    const facilitator = await this.deps.facilitator();
    if (!facilitator || !a.payment) {
      await this.finish(a.id, 'failed', { error: facilitator ? 'no signature kept' : 'top-ups are not configured' });
      return { kind: 'refused', authorizationId: a.id, reason: 'unavailable' };
    }
    if (Number(a.valid_before) < now + EXPIRY_MARGIN_MS) {
      await this.finish(a.id, 'expired', {});
      return { kind: 'refused', authorizationId: a.id, reason: 'expired' };
    }
    const header = isSealed(a.payment) ? secrets!.open(a.payment, sealContext(a.id)) : a.payment;
    const deps = { store, cfg, facilitator };
    try {
      const result = await settlePayment(deps, await verifyPayment(deps, header), undefined, 'auto');
      await this.finish(a.id, 'settled', { tx: result.settlement.transaction, topupId: result.paymentId });
      await store.run('UPDATE auto_topups SET retry_after = NULL, last_error = NULL WHERE wallet_id = $1', [walletId]);
      log.info({ walletId, amount: result.amount, transaction: result.settlement.transaction }, 'auto top-up settled');
      return { kind: 'settled', authorizationId: a.id, result };
    } catch (e) {
      if (!isApiError(e)) throw e; // left claimed: the next check settles it again, once
      const reason = String((e.extra?.details as { reason?: string } | undefined)?.reason ?? e.message);
      switch (e.code) {
        case 'PAYMENT_ALREADY_CREDITED': {
          // An earlier attempt settled and credited it, and died before saying so here.
          const done = await store.get<{ id: string; tx_hash: string }>(`SELECT id, tx_hash FROM x402_topups WHERE payment_key = $1 AND status = 'settled'`, [
            paymentKeyOf(cfg, header),
          ]);
          await this.finish(a.id, 'settled', { tx: done?.tx_hash, topupId: done?.id });
          return { kind: 'refused', authorizationId: a.id, reason: 'already settled' };
        }
        case 'PAYMENT_IN_PROGRESS':
        case 'SETTLEMENT_TIMEOUT':
          return { kind: 'refused', authorizationId: a.id, reason: 'pending' }; // stays claimed: resumed later
        default: {
          const status = /valid_before|expired/.test(reason) ? 'expired' : /nonce|used|cancel/i.test(reason) ? 'failed' : 'ready';
          await this.finish(a.id, status, { error: reason });
          // A refusal that may pass later (no USDC yet, the facilitator away): wait before the next attempt.
          if (status === 'ready')
            await store.run('UPDATE auto_topups SET retry_after = $2, last_error = $3 WHERE wallet_id = $1', [
              walletId,
              Date.now() + RETRY_MS,
              reason.slice(0, 200),
            ]);
          log.warn({ walletId, reason }, 'auto top-up refused');
          return { kind: 'refused', authorizationId: a.id, reason };
        }
      }
    }
  }

  private track<T>(p: Promise<T>): void {
    const t = p.catch((e) => log.error({ err: e }, 'auto top-up failed'));
    this.running.add(t);
    void t.finally(() => this.running.delete(t));
  }
}

/** The x402_topups key of a stored payment header (payment.ts: network, token, payer and nonce). */
function paymentKeyOf(cfg: WalletConfig, header: string): string {
  const env = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as {
    accepted: { asset: string };
    payload: { authorization: { from: string; nonce: string } };
  };
  const { from, nonce } = env.payload.authorization;
  return `${cfg.evm.network}:${env.accepted.asset.toLowerCase()}:${from.toLowerCase()}:${nonce.toLowerCase()}`;
}

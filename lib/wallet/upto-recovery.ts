// Finishing `upto` payments whose process died between the provisional credit and the settlement (or whose
// settlement timed out): at start and on a sweep, like the auto top-ups (auto-topup-runner.ts). A pending `upto`
// claim untouched for LAGOON_X402_STALE_CLAIM_MS has no live holder (upto-settlement.ts touches it while the work
// runs), and its payment is never claimed again by a replay, so only this finishes it, from what was kept with it:
//  - the request's usage row exists (its charge is final): exactly that charge is settled on chain with the kept
//    payment, and the rest of the cap is taken back in the transaction that marks the claim settled; when the
//    payment's Permit2 nonce is already used (the settlement went through before the crash), the claim is marked
//    settled at that same amount and nothing is sent again;
//  - no usage row (nothing was delivered: the chain is settled only after the usage row is recorded, metered.ts):
//    the whole cap is taken back and the claim fails, as a release does.
// Exactly once across instances: a claim is taken by a compare-and-set of its claim id (the row's lock on
// PostgreSQL), which also makes it fresh again, and every step after checks that claim id in the same transaction.
import { randomUUID } from 'node:crypto';
import { PERMIT2_ADDRESS } from '@x402/evm';
import { parseAbi, parseEventLogs } from 'viem';
import type { SecretBox } from '../db/secret-box.ts';
import type { Store } from '../db/store.ts';
import { log } from '../log.ts';
import type { WalletConfig } from './config.ts';
import type { Facilitator } from './facilitator.ts';
import { publicClientFor } from './signatures.ts';
import type { Claim } from './topup.ts';
import { finishClaim, type KeptPayment, keptPayment, touchWhileOpen } from './upto-settlement.ts';

const PERMIT2_ABI = parseAbi([
  'function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

/** How far back a settlement that went through is looked for (its transaction hash, for the statement). */
const LOOKBACK_BLOCKS = 10_000n;
/** Claims finished per sweep at most (the rest wait for the next one). */
const BATCH = 100;

export interface UptoRecoveryDeps {
  store: Store;
  cfg: () => WalletConfig;
  facilitator: () => Promise<Facilitator | undefined>;
  secrets: SecretBox | undefined;
}

export type RecoveryOutcome =
  | { kind: 'settled'; amount: number; tx: string | undefined; sent: boolean }
  | { kind: 'failed'; reason: string }
  | { kind: 'left'; reason: string };

interface Row {
  id: string;
  claim_id: string;
  amount: number;
  request_id: string | null;
  payment: string;
  account_id: string;
}

export class UptoRecovery {
  private readonly deps: UptoRecoveryDeps;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(deps: UptoRecoveryDeps) {
    this.deps = deps;
  }

  /** Sweeps now and every half of the stale window (at most every minute). */
  start(): void {
    const every = Math.min(60_000, Math.max(50, Math.floor(this.deps.cfg().staleClaimMs / 2)));
    this.timer = setInterval(() => void this.tick(), every);
    this.timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private tick(): Promise<unknown> {
    this.running ??= this.sweep()
      .catch((err) => log.error({ err }, 'x402: the upto recovery sweep failed (retried)'))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /** Finishes every stale pending `upto` claim this instance can take; what each came to. */
  async sweep(now = Date.now()): Promise<RecoveryOutcome[]> {
    const { store } = this.deps;
    const cut = now - this.deps.cfg().staleClaimMs;
    const rows = await store.all<Row>(
      `SELECT t.id, t.claim_id, t.amount, t.request_id, t.payment, w.account_id FROM x402_topups t JOIN wallets w ON w.id = t.wallet_id
        WHERE t.status = 'pending' AND t.payment IS NOT NULL AND t.updated_at < $1 ORDER BY t.updated_at LIMIT ${BATCH}`,
      [cut],
    );
    const outcomes: RecoveryOutcome[] = [];
    for (const row of rows) {
      const claimId = randomUUID();
      // Taken only if nobody touched or took it since it was read: the claim id is the lock from here on.
      const took = await store.run(
        `UPDATE x402_topups SET claim_id = $3, updated_at = $4 WHERE id = $1 AND claim_id = $2 AND status = 'pending' AND updated_at < $5`,
        [row.id, row.claim_id, claimId, Date.now(), cut],
      );
      if (took !== 1) continue;
      const c = { id: row.id, claimId };
      const stopTouching = touchWhileOpen(store, c, this.deps.cfg().staleClaimMs);
      try {
        const outcome = await this.finish(row, c);
        log.info({ paymentId: row.id, requestId: row.request_id, ...outcome }, 'x402: upto payment recovered');
        outcomes.push(outcome);
      } catch (err) {
        log.error({ err, paymentId: row.id }, 'x402: could not recover an upto payment (retried)');
        outcomes.push({ kind: 'left', reason: (err as Error).message });
      } finally {
        stopTouching();
      }
    }
    return outcomes;
  }

  private async finish(row: Row, c: Claim): Promise<RecoveryOutcome> {
    const { store, secrets } = this.deps;
    const cap = Number(row.amount);
    const usage = row.request_id
      ? await store.get<{ usd: number; refunded_usd: number | null }>('SELECT usd, refunded_usd FROM usage WHERE request_id = $1', [row.request_id])
      : undefined;
    if (!usage) {
      const reason = 'its process stopped before the work was charged';
      await finishClaim(store, c, row.account_id, cap, { status: 'failed', error: reason });
      return { kind: 'failed', reason };
    }
    // The charge as it was made (a refund for an answer not delivered is the wallet's credit, as on the live path).
    const used = Math.min(cap, Number(usage.usd) + Number(usage.refunded_usd ?? 0));
    const kept = keptPayment(secrets, row.id, row.payment);
    const settled = (tx: string | undefined, sent: boolean): Promise<RecoveryOutcome> =>
      finishClaim(store, c, row.account_id, cap - used, { status: 'settled', amount: used, tx }).then((ok) =>
        ok ? { kind: 'settled', amount: used, tx, sent } : { kind: 'left', reason: 'the claim was taken meanwhile' },
      );

    if (await this.nonceUsed(kept)) return settled(await this.findTransfer(kept, used), false);
    const facilitator = await this.deps.facilitator();
    if (!facilitator) return { kind: 'left', reason: 'no facilitator is configured' };
    const settlement = await facilitator.settle(kept.payload, { ...kept.requirements, amount: String(used) });
    if (settlement.success) return settled(settlement.transaction, true);
    // Settled meanwhile by the process we took for dead: the chain has it once.
    if (await this.nonceUsed(kept)) return settled(await this.findTransfer(kept, used), false);
    const reason = settlement.errorReason ?? 'unknown';
    if (reason === 'settlement_pending') return { kind: 'left', reason };
    // As on the live path: the cap goes back, the charge stays on the wallet as a debt.
    await finishClaim(store, c, row.account_id, cap, { status: 'failed', error: `settlement failed: ${reason}` });
    return { kind: 'failed', reason };
  }

  private auth(kept: KeptPayment) {
    return (kept.payload.payload as { permit2Authorization: { from: string; nonce: string; witness: { to: string } } }).permit2Authorization;
  }

  /** Whether the payment's Permit2 nonce is spent on chain (its bit in the owner's nonce bitmap). */
  private async nonceUsed(kept: KeptPayment): Promise<boolean> {
    const rpcUrl = this.deps.cfg().evm.rpcUrl;
    if (!rpcUrl) return false; // a remote facilitator alone: its settlement refuses a spent nonce
    const { from, nonce } = this.auth(kept);
    const n = BigInt(nonce);
    const word = await publicClientFor(rpcUrl).readContract({
      address: PERMIT2_ADDRESS,
      abi: PERMIT2_ABI,
      functionName: 'nonceBitmap',
      args: [from as `0x${string}`, n >> 8n],
    });
    return ((word >> (n & 255n)) & 1n) === 1n;
  }

  /**
   * The transaction that paid `used` from the payer to our recipient, for the statement; undefined when it cannot be
   * told (the amount is the usage row's either way). Only transfers no other payment names are taken.
   */
  private async findTransfer(kept: KeptPayment, used: number): Promise<string | undefined> {
    const rpcUrl = this.deps.cfg().evm.rpcUrl;
    if (!rpcUrl) return undefined;
    try {
      const client = publicClientFor(rpcUrl);
      const { from, witness } = this.auth(kept);
      const latest = await client.getBlockNumber();
      const logs = await client.getLogs({
        address: kept.requirements.asset as `0x${string}`,
        event: PERMIT2_ABI[1],
        args: { from: from as `0x${string}`, to: witness.to as `0x${string}` },
        fromBlock: latest > LOOKBACK_BLOCKS ? latest - LOOKBACK_BLOCKS : 0n,
        toBlock: latest,
      });
      for (const l of parseEventLogs({ abi: PERMIT2_ABI, logs }).reverse()) {
        if (l.eventName !== 'Transfer' || l.args.value !== BigInt(used)) continue;
        const known = await this.deps.store.get('SELECT id FROM x402_topups WHERE tx_hash = $1', [l.transactionHash]);
        if (!known) return l.transactionHash;
      }
    } catch (e) {
      log.warn(`x402: could not look for an upto settlement on chain: ${(e as Error).message.split('\n')[0]}`);
    }
    return undefined;
  }
}

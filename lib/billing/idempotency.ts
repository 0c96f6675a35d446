// Idempotency-Key claims, one implementation for every billed POST (lib/http/billed.ts) and the JSON-RPC proxy
// (lib/crypto-rpc/proxy.ts). The first request with a key claims it (a row in the store, unique per account and key,
// so a duplicate on another instance finds it too); it runs, and stores the answer it was billed for. A later request
// with the same key and the same request (its hash) gets that answer again, unbilled, for 24 hours; with another
// request it is a 422. A duplicate that arrives while the first is still running waits for it (in-process at once,
// across instances by polling the row) and then replays, so concurrent duplicates never both run. A failed attempt
// (no answer to keep) gives its claim up, so a retry runs afresh.
//
// A claim whose owner went silent for longer than any attempt can run (its instance died mid-call) is taken over.
// What an answer is belongs to the caller: it is stored as text and handed back as it was given.
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import { log } from '../log.ts';

export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,255}$/;
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
const POLL_MS = 50;
const SWEEP_EVERY_MS = 10 * 60_000;

export type Claim =
  | { kind: 'owner'; complete(answer: string): Promise<void>; abandon(): Promise<void> }
  /** `owner`: the id of the request whose answer this is. */
  | { kind: 'replay'; answer: string; owner: string };

interface ClaimRow {
  request_hash: string;
  state: string;
  owner: string;
  answer: string | null;
  created_at: number;
  updated_at: number;
}

/** Resolves after `ms`, or as soon as `until` settles; leaves no timer behind. */
function wait(ms: number, until?: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    until?.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export class IdempotencyStore {
  private readonly store: Store;
  /** How long a pending claim may stay silent before it is taken for abandoned; also how long a duplicate waits. */
  private readonly staleMs: number;
  /** Claims owned by this process, so a local duplicate wakes the moment the owner finishes. */
  private readonly local = new Map<string, { done: Promise<void>; resolve: () => void }>();
  private lastSweep = 0;

  /** How long a duplicate waits for a running owner before its 409. */
  private readonly waitMs: number;
  /** How often a running owner touches its claim, so a long run is not taken for abandoned (0: never). */
  private readonly heartbeatMs: number;

  /**
   * `staleMs`: a pending claim silent this long is taken over. With `heartbeatMs` an owner touches its claim while it
   * runs, so staleMs can be short (an instance that died is noticed soon) and a run may last any time.
   */
  constructor(store: Store, opts: { staleMs: number; waitMs?: number; heartbeatMs?: number }) {
    this.store = store;
    this.staleMs = opts.staleMs;
    this.waitMs = opts.waitMs ?? opts.staleMs;
    this.heartbeatMs = opts.heartbeatMs ?? 0;
  }

  /** Claims the key for this request, or returns the stored answer; 422 for another request, 409 after waiting too long. */
  async claim(accountId: string, key: string, hash: string, requestId: string): Promise<Claim> {
    this.sweep();
    const started = Date.now();
    for (;;) {
      const now = Date.now();
      const inserted = await this.store.run(
        `INSERT INTO idempotency_keys (account_id, idem_key, request_hash, state, owner, created_at, updated_at)
         VALUES ($1, $2, $3, 'pending', $4, $5, $5) ON CONFLICT (account_id, idem_key) DO NOTHING`,
        [accountId, key, hash, requestId, now],
      );
      if (inserted === 1) return this.owned(accountId, key, requestId);
      const row = await this.store.get<ClaimRow>(
        'SELECT request_hash, state, owner, answer, created_at, updated_at FROM idempotency_keys WHERE account_id = $1 AND idem_key = $2',
        [accountId, key],
      );
      if (!row) continue; // given up or expired in between: claim again
      if (Number(row.created_at) < now - IDEMPOTENCY_TTL_MS) {
        await this.store.run('DELETE FROM idempotency_keys WHERE account_id = $1 AND idem_key = $2 AND created_at = $3', [accountId, key, row.created_at]);
        continue;
      }
      if (row.request_hash !== hash) {
        throw new ApiError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request (another route or body)', {
          param: 'Idempotency-Key',
        });
      }
      if (row.state === 'done') {
        return { kind: 'replay', answer: row.answer ?? '', owner: row.owner };
      }
      if (Number(row.updated_at) < now - this.staleMs) {
        const taken = await this.store.run(
          `UPDATE idempotency_keys SET owner = $3, updated_at = $4 WHERE account_id = $1 AND idem_key = $2 AND state = 'pending' AND owner = $5`,
          [accountId, key, requestId, now, row.owner],
        );
        if (taken === 1) return this.owned(accountId, key, requestId);
        continue;
      }
      if (now - started > this.waitMs) throw new ApiError('IDEMPOTENCY_KEY_IN_PROGRESS');
      // The owner in this process wakes us when it ends; one elsewhere is polled.
      const mine = this.local.get(`${accountId}|${key}`);
      await wait(mine ? Math.max(1, this.waitMs - (now - started)) : POLL_MS, mine?.done);
    }
  }

  private owned(accountId: string, key: string, requestId: string): Claim {
    const id = `${accountId}|${key}`;
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    this.local.set(id, { done, resolve });
    const heartbeat =
      this.heartbeatMs > 0
        ? setInterval(() => {
            this.store
              .run(`UPDATE idempotency_keys SET updated_at = $4 WHERE account_id = $1 AND idem_key = $2 AND owner = $3 AND state = 'pending'`, [
                accountId,
                key,
                requestId,
                Date.now(),
              ])
              .catch((err) => log.warn({ err }, 'could not touch an idempotency claim'));
          }, this.heartbeatMs)
        : undefined;
    heartbeat?.unref();
    const finish = () => {
      clearInterval(heartbeat);
      if (this.local.get(id)?.done === done) this.local.delete(id);
      resolve();
    };
    return {
      kind: 'owner',
      complete: async (answer) => {
        try {
          await this.store.run(
            `UPDATE idempotency_keys SET state = 'done', answer = $4, updated_at = $5
             WHERE account_id = $1 AND idem_key = $2 AND owner = $3`,
            [accountId, key, requestId, answer, Date.now()],
          );
        } finally {
          finish();
        }
      },
      abandon: async () => {
        try {
          await this.store.run(`DELETE FROM idempotency_keys WHERE account_id = $1 AND idem_key = $2 AND owner = $3 AND state = 'pending'`, [
            accountId,
            key,
            requestId,
          ]);
        } finally {
          finish();
        }
      },
    };
  }

  /** Drops expired keys now and then (they are also ignored when met). */
  private sweep(): void {
    const now = Date.now();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    this.store
      .run('DELETE FROM idempotency_keys WHERE created_at < $1', [now - IDEMPOTENCY_TTL_MS])
      .catch((e) => log.error({ err: e }, 'could not sweep expired idempotency keys'));
  }
}

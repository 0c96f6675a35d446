// Idempotency-Key for the JSON-RPC proxy: the first request with a key claims it (a row in the store, unique per
// account and key, so a duplicate on another instance finds it too); it forwards, and stores the answer it was billed
// for. A later request with the same key and the same calls (ids aside: see ids.ts) gets that answer again, unbilled,
// for 24 hours; with other calls it is a 400. A duplicate that arrives while the first is still running waits for it (in-process at once, across
// instances by polling the row) and then replays, so concurrent duplicates never both forward a transaction. A failed
// attempt (no answer to bill) gives its claim up, so a retry forwards afresh.
//
// A claim whose owner went silent for longer than any attempt can run (its instance died mid-call) is taken over: a
// signed transaction sent again is the same transaction, which the node accepts once.
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import { log } from '../log.ts';

export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,255}$/;
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
const POLL_MS = 50;
const SWEEP_EVERY_MS = 10 * 60_000;

export interface StoredAnswer {
  body: string;
  credits: number;
  /** The ids of the calls it answered, as written (null for a notification), so a replay can answer with the retry's. */
  callIds: (string | null)[];
}

export type Claim = { kind: 'owner'; complete(answer: StoredAnswer): Promise<void>; abandon(): Promise<void> } | { kind: 'replay'; answer: StoredAnswer };

interface ClaimRow {
  request_hash: string;
  state: string;
  owner: string;
  body: string | null;
  call_ids: string | null;
  credits: number | null;
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

  constructor(store: Store, opts: { staleMs: number }) {
    this.store = store;
    this.staleMs = opts.staleMs;
  }

  /** Claims the key for this request, or returns the stored answer; 400 for another body, 409 after waiting too long. */
  async claim(accountId: string, key: string, hash: string, requestId: string): Promise<Claim> {
    this.sweep();
    const started = Date.now();
    for (;;) {
      const now = Date.now();
      const inserted = await this.store.run(
        `INSERT INTO rpc_idempotency (account_id, idem_key, request_hash, state, owner, created_at, updated_at)
         VALUES ($1, $2, $3, 'pending', $4, $5, $5) ON CONFLICT (account_id, idem_key) DO NOTHING`,
        [accountId, key, hash, requestId, now],
      );
      if (inserted === 1) return this.owned(accountId, key, requestId);
      const row = await this.store.get<ClaimRow>(
        'SELECT request_hash, state, owner, body, call_ids, credits, created_at, updated_at FROM rpc_idempotency WHERE account_id = $1 AND idem_key = $2',
        [accountId, key],
      );
      if (!row) continue; // given up or expired in between: claim again
      if (Number(row.created_at) < now - IDEMPOTENCY_TTL_MS) {
        await this.store.run('DELETE FROM rpc_idempotency WHERE account_id = $1 AND idem_key = $2 AND created_at = $3', [accountId, key, row.created_at]);
        continue;
      }
      if (row.request_hash !== hash) {
        throw new ApiError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request (another network or body)', {
          param: 'Idempotency-Key',
        });
      }
      if (row.state === 'done') {
        return { kind: 'replay', answer: { body: row.body ?? '', credits: Number(row.credits ?? 0), callIds: JSON.parse(row.call_ids ?? '[]') } };
      }
      if (Number(row.updated_at) < now - this.staleMs) {
        const taken = await this.store.run(
          `UPDATE rpc_idempotency SET owner = $3, updated_at = $4 WHERE account_id = $1 AND idem_key = $2 AND state = 'pending' AND owner = $5`,
          [accountId, key, requestId, now, row.owner],
        );
        if (taken === 1) return this.owned(accountId, key, requestId);
        continue;
      }
      if (now - started > this.staleMs) throw new ApiError('IDEMPOTENCY_KEY_IN_PROGRESS');
      // The owner in this process wakes us when it ends; one elsewhere is polled.
      const mine = this.local.get(`${accountId}|${key}`);
      await wait(mine ? this.staleMs : POLL_MS, mine?.done);
    }
  }

  private owned(accountId: string, key: string, requestId: string): Claim {
    const id = `${accountId}|${key}`;
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    this.local.set(id, { done, resolve });
    const finish = () => {
      if (this.local.get(id)?.done === done) this.local.delete(id);
      resolve();
    };
    return {
      kind: 'owner',
      complete: async (answer) => {
        try {
          await this.store.run(
            `UPDATE rpc_idempotency SET state = 'done', body = $4, call_ids = $5, credits = $6, updated_at = $7
             WHERE account_id = $1 AND idem_key = $2 AND owner = $3`,
            [accountId, key, requestId, answer.body, JSON.stringify(answer.callIds), answer.credits, Date.now()],
          );
        } finally {
          finish();
        }
      },
      abandon: async () => {
        try {
          await this.store.run(`DELETE FROM rpc_idempotency WHERE account_id = $1 AND idem_key = $2 AND owner = $3 AND state = 'pending'`, [
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
      .run('DELETE FROM rpc_idempotency WHERE created_at < $1', [now - IDEMPOTENCY_TTL_MS])
      .catch((e) => log.error({ err: e }, 'crypto-rpc: could not sweep expired idempotency keys'));
  }
}

// Where in-flight holds are remembered. With PostgreSQL (several instances) each hold is a row, so a hold left by a
// crashed instance can be found and released. With the embedded SQLite file, one server owns the data dir (a lock
// file enforces it), so holds live in memory and a restart simply zeroes the held amounts — two fewer writes per
// request on the hot path.
import type { Queryable, Store } from '../db/store.ts';

export interface HeldAmount {
  usd: number;
  diem: number;
}

export interface HoldBook {
  add(q: Queryable, h: { requestId: string; accountId: string; keyId: string | null; usd: number; diem: number; createdAt: number }): Promise<void>;
  /** Removes and returns the hold, or undefined when it was already settled or released. */
  take(q: Queryable, requestId: string): Promise<HeldAmount | undefined>;
}

export function tableHolds(store: Store): HoldBook {
  return {
    async add(q, h) {
      await q.run('INSERT INTO holds (request_id, account_id, key_id, usd, diem, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        h.requestId, h.accountId, h.keyId, h.usd, h.diem, h.createdAt,
      ]);
    },
    async take(q, requestId) {
      const held = await q.get<HeldAmount>(`SELECT usd, diem FROM holds WHERE request_id = $1${store.forUpdate}`, [requestId]);
      if (held) await q.run('DELETE FROM holds WHERE request_id = $1', [requestId]);
      return held;
    },
  };
}

export function memoryHolds(): HoldBook {
  const live = new Map<string, HeldAmount>();
  return {
    async add(_q, h) {
      live.set(h.requestId, { usd: h.usd, diem: h.diem });
    },
    async take(_q, requestId) {
      const held = live.get(requestId);
      live.delete(requestId);
      return held;
    },
  };
}

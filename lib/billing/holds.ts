// Where in-flight holds are kept. With PostgreSQL (several instances may share it) each hold is a row and the
// account's held columns carry the totals, so a hold left by a crashed instance can be found and released. With
// the embedded SQLite file one server owns the data dir (a lock file enforces it), so holds and their per-account
// totals live in memory: a reservation is then a single read, and a restart starts with nothing held.
import type { Queryable, Store } from '../db/store.ts';

export interface HeldAmount {
  usd: number;
  diem: number;
}

export interface NewHold extends HeldAmount {
  requestId: string;
  accountId: string;
  keyId: string | null;
  createdAt: number;
}

export interface HoldBook {
  /** True when holds are only in this process (reservations then need no transaction). */
  readonly inMemory: boolean;
  /**
   * The account's held totals when this book keeps them (undefined: read the accounts row). `unclaimed` leaves out
   * holds already claimed by a settlement that has not committed yet: what other requests still hold.
   */
  totals(accountId: string, unclaimed?: boolean): HeldAmount | undefined;
  /** The key's held totals when this book keeps them; undefined means: sum the key's hold rows. */
  keyTotals(keyId: string): HeldAmount | undefined;
  /** Records a hold. Synchronous up to its first await, so a check just before it cannot be raced in process. */
  add(q: Queryable, h: NewHold): Promise<void>;
  /** Claims the hold for settling or releasing; undefined when it was already claimed. */
  take(q: Queryable, requestId: string): Promise<HeldAmount | undefined>;
  /** Called once the claim's transaction has committed (memory: the totals drop only then, never before). */
  committed(hold: HeldAmount & { accountId: string; keyId: string | null }): void;
}

/**
 * Holds as rows. `instanceId` (this process's lease, instance-lease.ts) is written on each row, so the holds of an
 * instance that died can be told from those of a live one and released by any live instance.
 */
export function tableHolds(store: Store, instanceId: string | null = null): HoldBook {
  return {
    inMemory: false,
    totals: () => undefined,
    keyTotals: () => undefined,
    async add(q, h) {
      await q.run('UPDATE accounts SET usd_held = usd_held + $2, diem_held = diem_held + $3 WHERE id = $1', [h.accountId, h.usd, h.diem]);
      await q.run('INSERT INTO holds (request_id, account_id, key_id, usd, diem, created_at, instance_id) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        h.requestId,
        h.accountId,
        h.keyId,
        h.usd,
        h.diem,
        h.createdAt,
        instanceId,
      ]);
    },
    async take(q, requestId) {
      const held = await q.get<HeldAmount & { account_id: string }>(`SELECT account_id, usd, diem FROM holds WHERE request_id = $1${store.forUpdate}`, [
        requestId,
      ]);
      if (!held) return undefined;
      await q.run('DELETE FROM holds WHERE request_id = $1', [requestId]);
      await q.run('UPDATE accounts SET usd_held = usd_held - $2, diem_held = diem_held - $3 WHERE id = $1', [held.account_id, held.usd, held.diem]);
      return { usd: held.usd, diem: held.diem };
    },
    committed: () => {},
  };
}

interface AccountHolds {
  /** Holds of requests still running or not yet claimed. */
  unclaimed: HeldAmount;
  /** Holds claimed by a settlement whose transaction has not committed: still counted against new reservations. */
  claimed: HeldAmount;
}

export function memoryHolds(): HoldBook {
  const live = new Map<string, { accountId: string; keyId: string | null; held: HeldAmount }>();
  const accounts = new Map<string, AccountHolds>();
  // Per key, claimed and unclaimed together: a key limit counts everything not yet committed.
  const keys = new Map<string, HeldAmount>();
  const addKey = (keyId: string | null, h: HeldAmount, sign: 1 | -1) => {
    if (!keyId) return;
    const k = keys.get(keyId) ?? { usd: 0, diem: 0 };
    k.usd += sign * h.usd;
    k.diem += sign * h.diem;
    if (k.usd <= 0 && k.diem <= 0) keys.delete(keyId);
    else keys.set(keyId, k);
  };
  const of = (id: string) => {
    let a = accounts.get(id);
    if (!a) accounts.set(id, (a = { unclaimed: { usd: 0, diem: 0 }, claimed: { usd: 0, diem: 0 } }));
    return a;
  };
  const move = (to: HeldAmount, from: HeldAmount | undefined, h: HeldAmount) => {
    to.usd += h.usd;
    to.diem += h.diem;
    if (from) {
      from.usd -= h.usd;
      from.diem -= h.diem;
    }
  };
  return {
    inMemory: true,
    totals(accountId, unclaimed = false) {
      const a = accounts.get(accountId);
      if (!a) return { usd: 0, diem: 0 };
      return unclaimed ? { ...a.unclaimed } : { usd: a.unclaimed.usd + a.claimed.usd, diem: a.unclaimed.diem + a.claimed.diem };
    },
    keyTotals: (keyId) => ({ ...(keys.get(keyId) ?? { usd: 0, diem: 0 }) }),
    async add(_q, h) {
      live.set(h.requestId, { accountId: h.accountId, keyId: h.keyId, held: { usd: h.usd, diem: h.diem } });
      move(of(h.accountId).unclaimed, undefined, h);
      addKey(h.keyId, h, 1);
    },
    async take(_q, requestId) {
      const entry = live.get(requestId);
      if (!entry) return undefined;
      live.delete(requestId);
      const a = of(entry.accountId);
      move(a.claimed, a.unclaimed, entry.held);
      return entry.held;
    },
    committed(held) {
      addKey(held.keyId, held, -1);
      const a = accounts.get(held.accountId);
      if (!a) return;
      a.claimed.usd -= held.usd;
      a.claimed.diem -= held.diem;
      if (a.claimed.usd <= 0 && a.claimed.diem <= 0 && a.unclaimed.usd <= 0 && a.unclaimed.diem <= 0) accounts.delete(held.accountId);
    },
  };
}

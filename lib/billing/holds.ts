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
  /** The team member the key acts for (member-cap.ts); table holds find it through the key. */
  memberId?: string | null;
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
  /** A team member's held total (USD plus DIEM) when this book keeps it; undefined means: sum their hold rows. */
  memberTotal(accountId: string, memberId: string): number | undefined;
  /**
   * Moves each time a claimed hold is dropped (`committed`). A reservation reading outside a transaction (memory
   * holds) reads again when it moved during its reads: a settlement that committed in between would otherwise be
   * missing from both the rows it read before and the holds it counts after.
   */
  readonly version: number;
  /** Records a hold. Synchronous up to its first await, so a check just before it cannot be raced in process. */
  add(q: Queryable, h: NewHold): Promise<void>;
  /** Claims the hold for settling or releasing; undefined when it was already claimed. */
  take(q: Queryable, requestId: string): Promise<HeldAmount | undefined>;
  /** Called once the claim's transaction has committed (memory: the totals drop only then, never before). */
  committed(hold: HeldAmount & { requestId: string; accountId: string; keyId: string | null }): void;
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
    memberTotal: () => undefined,
    version: 0,
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
  const live = new Map<string, { accountId: string; keyId: string | null; member: string | undefined; held: HeldAmount }>();
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
  // Per team member (account and user), USD plus DIEM, claimed and unclaimed together like a key's. A claimed hold's
  // member is remembered by its request id until `committed`, which the caller calls with the Hold it knows.
  const members = new Map<string, number>();
  const claimedMembers = new Map<string, { member: string; amount: number }>();
  const addMember = (member: string, amount: number) => {
    const left = (members.get(member) ?? 0) + amount;
    if (left <= 0) members.delete(member);
    else members.set(member, left);
  };
  const memberKey = (accountId: string, memberId: string) => `${accountId}\u0000${memberId}`;
  let version = 0;
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
    memberTotal: (accountId, memberId) => members.get(memberKey(accountId, memberId)) ?? 0,
    get version() {
      return version;
    },
    async add(_q, h) {
      const member = h.memberId ? memberKey(h.accountId, h.memberId) : undefined;
      live.set(h.requestId, { accountId: h.accountId, keyId: h.keyId, member, held: { usd: h.usd, diem: h.diem } });
      move(of(h.accountId).unclaimed, undefined, h);
      addKey(h.keyId, h, 1);
      if (member) addMember(member, h.usd + h.diem);
    },
    async take(_q, requestId) {
      const entry = live.get(requestId);
      if (!entry) return undefined;
      live.delete(requestId);
      if (entry.member) claimedMembers.set(requestId, { member: entry.member, amount: entry.held.usd + entry.held.diem });
      const a = of(entry.accountId);
      move(a.claimed, a.unclaimed, entry.held);
      return entry.held;
    },
    committed(held) {
      version++;
      addKey(held.keyId, held, -1);
      const claimed = claimedMembers.get(held.requestId);
      if (claimed) {
        claimedMembers.delete(held.requestId);
        addMember(claimed.member, -claimed.amount);
      }
      const a = accounts.get(held.accountId);
      if (!a) return;
      a.claimed.usd -= held.usd;
      a.claimed.diem -= held.diem;
      if (a.claimed.usd <= 0 && a.claimed.diem <= 0 && a.unclaimed.usd <= 0 && a.unclaimed.diem <= 0) accounts.delete(held.accountId);
    },
  };
}

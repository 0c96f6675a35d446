// The ledger as the request path uses it. Settlements are group-committed: the metered call waits for its commit
// before the response's last bytes (what a client received as complete is recorded; see metered.ts), and until one
// commits its request's hold (the estimate, never less than the charge) stays counted. Reservations are one read
// with in-memory holds (the embedded store), or group-committed transactions with table holds (PostgreSQL, several
// instances).
import { GroupCommit } from '../db/group-commit.ts';
import type { Store } from '../db/store.ts';
import { type HoldBook, memoryHolds, tableHolds } from './holds.ts';
import { type Balances, getBalances, type Hold, releaseIn, type ReserveInput, reserveIn, settleIn, type UsageRecord } from './ledger.ts';
import type { Amount } from './money.ts';

export class Ledger {
  private readonly store: Store;
  private readonly group: GroupCommit;
  private readonly background = new Set<Promise<unknown>>();
  private readonly holds: HoldBook;

  /**
   * `soleWriter`: this process is the only server on the store (the embedded SQLite file), so holds stay in memory.
   * Otherwise holds are rows carrying `instanceId`, this process's lease (instance-lease.ts).
   */
  constructor(store: Store, opts: { soleWriter: boolean; instanceId?: string }) {
    this.store = store;
    this.group = new GroupCommit(store);
    this.holds = opts.soleWriter ? memoryHolds() : tableHolds(store, opts.instanceId ?? null);
  }

  reserve(input: ReserveInput): Promise<{ hold: Hold; before: Balances }> {
    if (this.holds.inMemory) return reserveIn(this.store, this.store, input, this.holds);
    return this.group.run(input.accountId, (q) => reserveIn(this.store, q, input, this.holds));
  }

  /** The account's balances with every in-flight hold counted (in memory on the embedded store). */
  async balances(accountId: string, now = Date.now()): Promise<Balances> {
    const b = await getBalances(this.store, accountId, now);
    const held = this.holds.totals(accountId);
    if (held) [b.usdHeld, b.diemHeld] = [held.usd, held.diem];
    return b;
  }

  /**
   * Settles (group-committed); the promise resolves once the usage row and the charge have committed. `lazy`: nobody
   * waits for it, so it may wait a few ms to share a commit with others.
   */
  settle(hold: Hold, cost: Amount, usage: UsageRecord, opts: { lazy?: boolean } = {}): Promise<Amount> {
    const done = this.group.run(hold.accountId, (q) => settleIn(this.store, q, hold, cost, usage, Date.now(), this.holds), opts.lazy ?? false);
    return this.track(done.then((charged) => (this.holds.committed(hold), charged)));
  }

  release(hold: Hold): Promise<void> {
    const done = this.holds.inMemory
      ? releaseIn(this.store, this.store, hold, this.holds)
      : this.group.run(hold.accountId, (q) => releaseIn(this.store, q, hold, this.holds), true);
    return this.track(done.then(() => this.holds.committed(hold)));
  }

  /** Waits for every settlement and release started so far (graceful stop). */
  async drain(): Promise<void> {
    await this.group.drain();
    while (this.background.size) await Promise.allSettled([...this.background]);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.background.add(p);
    p.then(
      () => this.background.delete(p),
      (e) => {
        this.background.delete(p);
        console.error('ledger: a settlement or release failed; its hold stays until this instance stops and a sweep releases it', e);
      },
    );
    return p;
  }
}

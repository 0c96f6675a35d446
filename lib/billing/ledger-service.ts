// The ledger as the request path uses it. Settlements are group-committed after the response is on its way: until
// one commits, its request's hold (the estimate, never less than the charge) stays counted, so a pending settlement
// can only make admission more cautious. Reservations are one read with in-memory holds (the embedded store), or
// group-committed transactions with table holds (PostgreSQL, several instances).
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

  /** `soleWriter`: this process is the only server on the store (the embedded SQLite file), so holds stay in memory. */
  constructor(store: Store, opts: { soleWriter: boolean }) {
    this.store = store;
    this.group = new GroupCommit(store);
    this.holds = opts.soleWriter ? memoryHolds() : tableHolds(store);
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

  /** Settles in the background; the returned promise is for callers (tests) that want to wait. */
  settle(hold: Hold, cost: Amount, usage: UsageRecord): Promise<Amount> {
    const done = this.group.run(hold.accountId, (q) => settleIn(this.store, q, hold, cost, usage, Date.now(), this.holds), true);
    return this.track(done.then((charged) => (this.holds.committed(hold), charged)));
  }

  release(hold: Hold): Promise<void> {
    const done = this.holds.inMemory ? releaseIn(this.store, this.store, hold, this.holds) : this.group.run(hold.accountId, (q) => releaseIn(this.store, q, hold, this.holds), true);
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
        console.error('ledger: a background settlement failed; its hold stays until the next start or stale-hold sweep', e);
      },
    );
    return p;
  }
}

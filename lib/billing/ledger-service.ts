// The ledger as the request path uses it: reservations and settlements from concurrent requests are group-committed,
// and settlements run after the response is sent. Until a settlement commits, its request's hold (the estimate,
// never less than the charge) stays reserved, so a pending settlement can only make admission more cautious.
import { GroupCommit } from '../db/group-commit.ts';
import type { Store } from '../db/store.ts';
import { type Balances, type Hold, releaseIn, type ReserveInput, reserveIn, settleIn, type UsageRecord } from './ledger.ts';
import type { Amount } from './money.ts';

export class Ledger {
  private readonly store: Store;
  private readonly group: GroupCommit;
  private readonly background = new Set<Promise<unknown>>();

  constructor(store: Store) {
    this.store = store;
    this.group = new GroupCommit(store);
  }

  reserve(input: ReserveInput): Promise<{ hold: Hold; before: Balances }> {
    return this.group.run(input.accountId, (q) => reserveIn(this.store, q, input));
  }

  /** Settles in the background; the returned promise is for callers (tests) that want to wait. */
  settle(hold: Hold, cost: Amount, usage: UsageRecord): Promise<Amount> {
    return this.track(this.group.run(hold.accountId, (q) => settleIn(this.store, q, hold, cost, usage)));
  }

  release(hold: Hold): Promise<void> {
    return this.track(this.group.run(hold.accountId, (q) => releaseIn(this.store, q, hold)));
  }

  /** Waits for every settlement and release started so far (graceful stop). */
  async drain(): Promise<void> {
    while (this.background.size) await Promise.allSettled([...this.background]);
    await this.group.drain();
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.background.add(p);
    p.then(
      () => this.background.delete(p),
      (e) => {
        this.background.delete(p);
        console.error('ledger: a background settlement failed; its hold stays until the stale-hold sweep', e);
      },
    );
    return p;
  }
}

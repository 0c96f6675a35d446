// The ledger as the request path uses it. Settlements are group-committed, and until one commits its request's hold
// (the estimate, never less than the charge) stays counted. The metered call waits for a settlement to be recorded
// before the response's last bytes (what a client received as complete is never lost; see metered.ts): on the
// embedded store that is its journal line (settlement-journal.ts), the commit following at the end of the same
// event-loop turn; on PostgreSQL, the commit. Reservations are one read with in-memory holds (the embedded store),
// or group-committed transactions with table holds (PostgreSQL, several instances).
import { GroupCommit } from '../db/group-commit.ts';
import type { Store } from '../db/store.ts';
import { type HoldBook, memoryHolds, tableHolds } from './holds.ts';
import { type Balances, getBalances, type Hold, releaseIn, type ReserveInput, reserveIn, settleIn, type UsageRecord } from './ledger.ts';
import type { Amount } from './money.ts';
import { refundIn } from './refund.ts';
import type { SettlementJournal } from './settlement-journal.ts';
import { log } from '../log.ts';

export interface Settlement {
  /** Resolves with the charge once the usage row and the charge have committed. */
  committed: Promise<Amount>;
  /**
   * Resolves once a crash of this process can no longer lose the settlement: at once when it was journaled, else
   * with the commit (rejecting when the commit fails).
   */
  recorded: Promise<unknown>;
}

const RECORDED: Promise<unknown> = Promise.resolve();

export class Ledger {
  private readonly store: Store;
  private readonly group: GroupCommit;
  private readonly background = new Set<Promise<unknown>>();
  private readonly holds: HoldBook;
  private readonly journal: SettlementJournal | undefined;
  /** Requests whose delivery the HTTP layer watches: their settlement's commit, once there is one. */
  private readonly watched = new Map<string, Promise<Amount> | null>();
  /** Told each settled account once its settlement committed (the alerts' nudge: it must stay cheap). */
  private readonly settledListeners: ((accountId: string) => void)[] = [];

  /**
   * `soleWriter`: this process is the only server on the store (the embedded SQLite file), so holds stay in memory.
   * Otherwise holds are rows carrying `instanceId`, this process's lease (instance-lease.ts). `journal`: settlements
   * are recorded there before they commit (the embedded store; settlement-journal.ts).
   */
  constructor(store: Store, opts: { soleWriter: boolean; instanceId?: string; journal?: SettlementJournal }) {
    this.store = store;
    this.group = new GroupCommit(store);
    this.holds = opts.soleWriter ? memoryHolds() : tableHolds(store, opts.instanceId ?? null);
    this.journal = opts.journal;
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
   * Settles: journaled first when there is a journal and the settlement would commit alone, then group-committed.
   * `lazy`: nobody waits for the commit, so it may wait a few ms to share it with others.
   *
   * Only a settlement that would commit alone is journaled: it then need not wait for a commit of its own (at low
   * concurrency, the commit is most of what is left of the answer's path). One that joins a batch already forming
   * waits for that shared commit instead, as before: under load a journal line per request (a write system call
   * each) cost more throughput than the shared commit's wait.
   */
  settle(hold: Hold, cost: Amount, usage: UsageRecord, opts: { lazy?: boolean } = {}): Settlement {
    const now = Date.now();
    const journaled = (!opts.lazy && this.journal && this.group.idle() && this.journal.append({ hold, cost, usage, at: now })) || false;
    const done = this.group.run(hold.accountId, (q) => settleIn(this.store, q, hold, cost, usage, now, this.holds), opts.lazy ?? false);
    const committed = this.track(
      done.then((charged) => {
        this.holds.committed(hold);
        if (journaled) this.journal!.committed();
        for (const listener of this.settledListeners) {
          try {
            listener(hold.accountId);
          } catch (e) {
            log.error({ err: e }, 'ledger: a settlement listener failed');
          }
        }
        return charged;
      }),
    );
    if (this.watched.has(hold.requestId)) this.watched.set(hold.requestId, committed);
    return { committed, recorded: journaled ? RECORDED : committed };
  }

  release(hold: Hold): Promise<void> {
    const done = this.holds.inMemory
      ? releaseIn(this.store, this.store, hold, this.holds)
      : this.group.run(hold.accountId, (q) => releaseIn(this.store, q, hold, this.holds), true);
    return this.track(done.then(() => this.holds.committed(hold)));
  }

  /**
   * `fn(accountId)` after each settlement commits (lib/alerts evaluates the account later, elsewhere; lib/wallet's
   * auto top-up checks its balance). Listeners only take note: the work happens off the settlement's path.
   */
  onSettled(fn: (accountId: string) => void): void {
    this.settledListeners.push(fn);
  }

  /** The HTTP layer answers this request: its settlement is kept at hand until `delivered` says how it went. */
  watch(requestId: string): void {
    this.watched.set(requestId, null);
  }

  /**
   * The answer reached its client (`true`: nothing to do) or did not (`false`): a settlement under the request id is
   * refunded once it has committed. Resolves with what went back.
   */
  delivered(requestId: string, ok: boolean): Promise<Amount> | undefined {
    const settled = this.watched.get(requestId);
    this.watched.delete(requestId);
    if (ok || !settled) return undefined;
    return this.track(settled.then(() => this.store.tx((q) => refundIn(this.store, q, requestId))));
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
        log.error({ err: e }, 'ledger: a settlement or release failed; its hold stays until this instance stops and a sweep releases it');
      },
    );
    return p;
  }
}

// Instance leases: credit held by a process that died is released by the ones still alive. Only where holds are rows
// (PostgreSQL, several instances); the embedded store keeps holds in memory, so they die with their process.
//
// Each server process takes a random instance id at start and keeps a row in `instances` whose `heartbeat_at` it
// renews every `heartbeatMs`, by the database's clock (so the instances' own clocks never matter). Its holds carry the
// id. Every `sweepMs`, each live instance releases the holds whose instance has no heartbeat fresher than `leaseMs`:
// one transaction per account, which locks the account row, then the orphaned hold rows, deletes them and takes
// exactly what they held off `accounts.*_held`. A hold is released at most once (its row is gone after), and a
// settlement that comes later from an instance that was not really dead finds no hold and still bills once
// (settleIn: the usage row's key decides). A graceful stop drains the ledger, then deletes the instance's row, so
// whatever it still holds is released by the next sweep anywhere.
import { randomBytes } from 'node:crypto';
import type { Queryable, Store } from '../db/store.ts';
import { log } from '../log.ts';
import { addEntry } from './entries.ts';

export interface LeaseTimes {
  /** How often an instance renews its heartbeat. */
  heartbeatMs: number;
  /** An instance whose heartbeat is older than this is dead, and its holds are released. */
  leaseMs: number;
  /** How often a live instance looks for the holds of dead ones (also once at start). */
  sweepMs: number;
}

export const DEFAULT_LEASE: LeaseTimes = { heartbeatMs: 10_000, leaseMs: 45_000, sweepMs: 15_000 };

/** Holds written before instances had leases (no owner) are released once older than any request may run. */
const UNOWNED_HOLD_MS = 60 * 60 * 1000;

/** The database's clock in Unix milliseconds, as SQL. */
export const nowSql = (store: Store) =>
  store.kind === 'postgres' ? '(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT' : "CAST(unixepoch('subsec') * 1000 AS INTEGER)";

/**
 * The condition on `holds h` of a hold nobody alive owns ($1: the oldest live heartbeat, $2: the unowned cut-off). A
 * job's hold (lib/jobs) is the job's until its billing closes, whichever instance queued it: the job machinery
 * settles or releases it, so the sweep leaves it alone.
 */
const ORPHANED = `((h.instance_id IS NULL AND h.created_at < $2)
  OR (h.instance_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = h.instance_id AND i.heartbeat_at >= $1)))
  AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = h.request_id AND j.billing IN ('held', 'settling', 'releasing'))`;

export interface SweepResult {
  /** Holds released. */
  holds: number;
  accounts: number;
}

async function cutoffs(store: Store, leaseMs: number): Promise<[number, number]> {
  const row = await store.get<{ now: number }>(`SELECT ${nowSql(store)} AS now`);
  const now = Number(row!.now);
  return [now - leaseMs, now - UNOWNED_HOLD_MS];
}

/** Releases one account's orphaned holds in one transaction; returns how many. */
async function releaseOrphansOf(store: Store, q: Queryable, accountId: string, live: number, unowned: number): Promise<number> {
  await q.get(`SELECT id FROM accounts WHERE id = $1${store.forUpdate}`, [accountId]);
  // Read again under the lock: a hold settled or released meanwhile is gone, and is not released twice.
  const rows = await q.all<{ request_id: string; usd: number; diem: number }>(
    `SELECT h.request_id, h.usd, h.diem FROM holds h WHERE h.account_id = $3 AND ${ORPHANED}${store.forUpdate}`,
    [live, unowned, accountId],
  );
  if (!rows.length) return 0;
  let usd = 0;
  let diem = 0;
  for (const r of rows) {
    await q.run('DELETE FROM holds WHERE request_id = $1', [r.request_id]);
    await addEntry(q, { accountId, kind: 'release', heldUsd: Number(r.usd), heldDiem: Number(r.diem), ref: r.request_id, note: 'its instance stopped' });
    usd += Number(r.usd);
    diem += Number(r.diem);
  }
  await q.run('UPDATE accounts SET usd_held = usd_held - $2, diem_held = diem_held - $3 WHERE id = $1', [accountId, usd, diem]);
  return rows.length;
}

/** Releases every hold whose instance has no heartbeat fresher than `leaseMs` (and unowned ones over an hour old). */
export async function sweepOrphanedHolds(store: Store, leaseMs: number): Promise<SweepResult> {
  const [live, unowned] = await cutoffs(store, leaseMs);
  const accounts = await store.all<{ account_id: string }>(`SELECT DISTINCT h.account_id FROM holds h WHERE ${ORPHANED} ORDER BY h.account_id`, [
    live,
    unowned,
  ]);
  let holds = 0;
  for (const { account_id } of accounts) holds += await store.tx((q) => releaseOrphansOf(store, q, account_id, live, unowned));
  // Dead instances with nothing left held are forgotten (a late heartbeat from one would add it back).
  await store.run('DELETE FROM instances WHERE heartbeat_at < $1 AND NOT EXISTS (SELECT 1 FROM holds h WHERE h.instance_id = instances.id)', [live]);
  return { holds, accounts: accounts.length };
}

/** This process's lease: its id (written on its holds), its heartbeat and its share of the sweeping. */
export class InstanceLease {
  readonly id = randomBytes(8).toString('hex');
  private readonly store: Store;
  private readonly times: LeaseTimes;
  private heartbeat: NodeJS.Timeout | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping: Promise<unknown> | undefined;
  private beating: Promise<unknown> | undefined;

  constructor(store: Store, times: LeaseTimes = DEFAULT_LEASE) {
    this.store = store;
    this.times = times;
  }

  /** Writes the heartbeat (before any hold of this instance exists), sweeps once, then keeps both going. */
  async start(): Promise<void> {
    await this.beat();
    await this.sweep();
    this.heartbeat = setInterval(() => {
      this.beating ??= this.beat()
        .catch((e) => log.error({ err: e }, 'instance lease: the heartbeat failed (retried)'))
        .finally(() => (this.beating = undefined));
    }, this.times.heartbeatMs).unref();
    this.sweeper = setInterval(() => {
      this.sweeping ??= this.sweep()
        .catch((e) => log.error({ err: e }, 'instance lease: the sweep of orphaned holds failed (retried)'))
        .finally(() => (this.sweeping = undefined));
    }, this.times.sweepMs).unref();
  }

  private beat(): Promise<number> {
    const now = nowSql(this.store);
    return this.store.run(
      `INSERT INTO instances (id, started_at, heartbeat_at) VALUES ($1, ${now}, ${now}) ON CONFLICT (id) DO UPDATE SET heartbeat_at = ${now}`,
      [this.id],
    );
  }

  /** One sweep now; logs what it released. */
  async sweep(): Promise<SweepResult> {
    const r = await sweepOrphanedHolds(this.store, this.times.leaseMs);
    if (r.holds) log.info(`instance lease: released ${r.holds} hold(s) of stopped instances on ${r.accounts} account(s)`);
    return r;
  }

  /** Stops renewing and deletes the heartbeat: call after the ledger has drained (what is still held is then orphaned). */
  async stop(): Promise<void> {
    clearInterval(this.heartbeat);
    clearInterval(this.sweeper);
    await Promise.allSettled([this.beating, this.sweeping]);
    await this.store.run('DELETE FROM instances WHERE id = $1', [this.id]);
  }
}

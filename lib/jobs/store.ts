// The jobs table's statements (migration 12). Every time is the database's clock (`nowSql`), so leases and durations
// mean the same on every instance. A claim takes one job atomically: on PostgreSQL `FOR UPDATE SKIP LOCKED` lets
// several instances claim at once without waiting on each other or taking the same row; on SQLite one process owns
// the data dir and its transactions hold the write lock. Each transition names the state it leaves (and the lease
// owner, for a running job), so a worker that lost its lease can no longer finish the job. A finished job keeps its
// last lease owner (which instance ran it); only a running one's lease counts.
import { nowSql } from '../billing/instance-lease.ts';
import type { Param, Queryable, Store } from '../db/store.ts';
import type { FailureCode } from './types.ts';

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';
export type JobBillingState = 'held' | 'settling' | 'settled' | 'releasing' | 'released';

export interface JobRow {
  id: string;
  kind: string;
  model_id: string;
  account_id: string;
  key_id: string | null;
  request: string;
  status: JobStatus;
  billing: JobBillingState;
  quote_usd: number;
  quote_diem: number;
  hold_usd: number;
  hold_diem: number;
  cost_usd: number | null;
  cost_diem: number | null;
  quantity: number | null;
  attempts: number;
  lease_owner: string | null;
  lease_until: number | null;
  state: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  updated_at: number;
  media_path: string | null;
  media_type: string | null;
  media_bytes: number | null;
  error: string | null;
  deleted_at: number | null;
}

/** The failure stored with a failed job. */
export interface StoredFailure {
  code: FailureCode;
  message: string;
}

const BIGINTS = [
  'quote_usd',
  'quote_diem',
  'hold_usd',
  'hold_diem',
  'cost_usd',
  'cost_diem',
  'quantity',
  'attempts',
  'lease_until',
  'created_at',
  'started_at',
  'finished_at',
  'updated_at',
  'media_bytes',
  'deleted_at',
] as const;

/** PostgreSQL returns BIGINT as strings: numbers here (every amount and time fits a double exactly). */
function toRow(r: Record<string, unknown>): JobRow {
  const out = { ...r } as Record<string, unknown>;
  for (const k of BIGINTS) if (out[k] !== null && out[k] !== undefined) out[k] = Number(out[k]);
  return out as unknown as JobRow;
}

export interface NewJob {
  id: string;
  kind: string;
  modelId: string;
  accountId: string;
  keyId: string | null;
  request: unknown;
  quote: { usd: number; diem: number };
  hold: { usd: number; diem: number };
}

export class JobStore {
  readonly store: Store;
  private readonly now: string;
  private readonly skipLocked: string;

  constructor(store: Store) {
    this.store = store;
    this.now = nowSql(store);
    this.skipLocked = store.kind === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
  }

  /** The database's time now. */
  async clock(): Promise<number> {
    const r = await this.store.get<{ now: number }>(`SELECT ${this.now} AS now`);
    return Number(r!.now);
  }

  /** Jobs of the account still queued or running. */
  async activeCount(q: Queryable, accountId: string): Promise<number> {
    const r = await q.get<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE account_id = $1 AND status IN ('queued', 'running')", [accountId]);
    return Number(r?.n ?? 0);
  }

  /**
   * Inserts a queued job unless the account already has `cap` active ones (then false). The account row is locked
   * first, as every ledger step locks it, so two queue requests of one account cannot both pass the count.
   */
  insert(job: NewJob, cap: number): Promise<boolean> {
    return this.store.tx(async (q) => {
      await q.get(`SELECT id FROM accounts WHERE id = $1${this.store.forUpdate}`, [job.accountId]);
      if ((await this.activeCount(q, job.accountId)) >= cap) return false;
      await q.run(
        `INSERT INTO jobs (id, kind, model_id, account_id, key_id, request, status, billing, quote_usd, quote_diem, hold_usd, hold_diem, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'queued', 'held', $7, $8, $9, $10, ${this.now}, ${this.now})`,
        [job.id, job.kind, job.modelId, job.accountId, job.keyId, JSON.stringify(job.request), job.quote.usd, job.quote.diem, job.hold.usd, job.hold.diem],
      );
      return true;
    });
  }

  /** The job with the database's time now (for durations), or undefined. */
  async get(id: string): Promise<(JobRow & { now: number }) | undefined> {
    const r = await this.store.get<Record<string, unknown>>(`SELECT j.*, ${this.now} AS now FROM jobs j WHERE j.id = $1`, [id]);
    return r ? { ...toRow(r), now: Number(r.now) } : undefined;
  }

  /**
   * Claims the oldest job of these kinds that is queued, or running under an expired lease (its worker died), for
   * `owner` for `leaseMs`. The claim starts a new attempt; undefined when there is nothing to do.
   */
  claim(kinds: string[], owner: string, leaseMs: number): Promise<JobRow | undefined> {
    if (!kinds.length) return Promise.resolve(undefined);
    const list = kinds.map((_, i) => `$${i + 1}`).join(', ');
    return this.store.tx(async (q) => {
      const pick = await q.get<{ id: string }>(
        `SELECT id FROM jobs WHERE kind IN (${list}) AND (status = 'queued' OR (status = 'running' AND lease_until < ${this.now}))
         ORDER BY created_at, id LIMIT 1${this.skipLocked}`,
        kinds,
      );
      if (!pick) return undefined;
      const n = kinds.length;
      await q.run(
        `UPDATE jobs SET status = 'running', lease_owner = $${n + 2}, lease_until = ${this.now} + $${n + 3}, started_at = ${this.now},
           attempts = attempts + 1, updated_at = ${this.now}
         WHERE id = $${n + 1} AND kind IN (${list}) AND (status = 'queued' OR (status = 'running' AND lease_until < ${this.now}))`,
        [...kinds, pick.id, owner, leaseMs] as Param[],
      );
      const row = await q.get<Record<string, unknown>>('SELECT * FROM jobs WHERE id = $1 AND lease_owner = $2', [pick.id, owner]);
      return row ? toRow(row) : undefined;
    });
  }

  /** Extends the lease; false when the job is no longer this owner's (taken over, cancelled). */
  async renew(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const n = await this.store.run(
      `UPDATE jobs SET lease_until = ${this.now} + $3, updated_at = ${this.now} WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
      [id, owner, leaseMs],
    );
    return n === 1;
  }

  async checkpoint(id: string, owner: string, state: unknown): Promise<boolean> {
    const n = await this.store.run(`UPDATE jobs SET state = $3, updated_at = ${this.now} WHERE id = $1 AND lease_owner = $2 AND status = 'running'`, [
      id,
      owner,
      JSON.stringify(state ?? null),
    ]);
    return n === 1;
  }

  /** Success: the media and what to bill are recorded and the job moves to `settling`; false if the lease was lost. */
  async succeed(
    id: string,
    owner: string,
    media: { path: string; type: string; bytes: number },
    cost: { usd: number; diem: number },
    quantity: number,
  ): Promise<boolean> {
    const n = await this.store.run(
      `UPDATE jobs SET status = 'succeeded', billing = 'settling', media_path = $3, media_type = $4, media_bytes = $5, cost_usd = $6, cost_diem = $7,
         quantity = $8, finished_at = ${this.now}, lease_until = NULL, updated_at = ${this.now}
       WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
      [id, owner, media.path, media.type, media.bytes, cost.usd, cost.diem, quantity],
    );
    return n === 1;
  }

  /** Failure of a running job (owner given) or of any unfinished one (owner null): moves to `releasing`. */
  async fail(id: string, owner: string | null, failure: StoredFailure): Promise<boolean> {
    const guard = owner === null ? "status IN ('queued', 'running')" : "lease_owner = $3 AND status = 'running'";
    const n = await this.store.run(
      `UPDATE jobs SET status = 'failed', billing = 'releasing', error = $2, finished_at = ${this.now}, lease_until = NULL,
         updated_at = ${this.now} WHERE id = $1 AND billing = 'held' AND ${guard}`,
      owner === null ? [id, JSON.stringify(failure)] : [id, JSON.stringify(failure), owner],
    );
    return n === 1;
  }

  /** Gives a running job back to the queue (graceful stop): not an attempt that counts. */
  async requeue(id: string, owner: string): Promise<boolean> {
    const n = await this.store.run(
      `UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_until = NULL, started_at = NULL, attempts = attempts - 1, updated_at = ${this.now}
       WHERE id = $1 AND lease_owner = $2 AND status = 'running'`,
      [id, owner],
    );
    return n === 1;
  }

  /** On SQLite at start: whatever was running belonged to the process that owned the data dir before, now dead. */
  requeueAllRunning(): Promise<number> {
    return this.store.run(
      `UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_until = NULL, started_at = NULL, updated_at = ${this.now} WHERE status = 'running'`,
    );
  }

  /** Marks the billing step done (`settling` → `settled`, `releasing` → `released`). */
  async billed(id: string, from: 'settling' | 'releasing'): Promise<void> {
    await this.store.run(`UPDATE jobs SET billing = $2, updated_at = ${this.now} WHERE id = $1 AND billing = $3`, [
      id,
      from === 'settling' ? 'settled' : 'released',
      from,
    ]);
  }

  /** The hold the re-hold at start gave the job (SQLite: holds live in memory). */
  async setHold(id: string, hold: { usd: number; diem: number }): Promise<void> {
    await this.store.run('UPDATE jobs SET hold_usd = $2, hold_diem = $3 WHERE id = $1', [id, hold.usd, hold.diem]);
  }

  /** Jobs whose billing is still open (held, settling, releasing), oldest first. */
  async openBilling(states: JobBillingState[], kinds: string[]): Promise<JobRow[]> {
    if (!kinds.length) return [];
    const s = states.map((_, i) => `$${i + 1}`).join(', ');
    const k = kinds.map((_, i) => `$${states.length + i + 1}`).join(', ');
    const rows = await this.store.all<Record<string, unknown>>(`SELECT * FROM jobs WHERE billing IN (${s}) AND kind IN (${k}) ORDER BY created_at`, [
      ...states,
      ...kinds,
    ]);
    return rows.map(toRow);
  }

  /** Marks the job deleted (complete, retention); returns its media path when it had one and was not deleted yet. */
  async markDeleted(id: string): Promise<{ deleted: boolean; mediaPath: string | null }> {
    return this.store.tx(async (q) => {
      const r = await q.get<{ media_path: string | null; deleted_at: number | null }>(
        `SELECT media_path, deleted_at FROM jobs WHERE id = $1${this.store.forUpdate}`,
        [id],
      );
      if (!r || r.deleted_at !== null) return { deleted: false, mediaPath: null };
      await q.run(`UPDATE jobs SET deleted_at = ${this.now}, updated_at = ${this.now} WHERE id = $1`, [id]);
      return { deleted: true, mediaPath: r.media_path };
    });
  }

  /** Finished jobs past the retention period, not deleted yet. */
  async expired(retentionMs: number, limit = 100): Promise<{ id: string }[]> {
    return this.store.all<{ id: string }>(
      `SELECT id FROM jobs WHERE status IN ('succeeded', 'failed') AND deleted_at IS NULL AND finished_at < ${this.now} - $1 ORDER BY finished_at LIMIT $2`,
      [retentionMs, limit],
    );
  }

  /** Media bytes kept now (finished jobs not deleted). */
  async storedBytes(): Promise<number> {
    const r = await this.store.get<{ n: number | null }>(
      "SELECT SUM(media_bytes) AS n FROM jobs WHERE status = 'succeeded' AND deleted_at IS NULL AND media_bytes IS NOT NULL",
    );
    return Number(r?.n ?? 0);
  }

  /** The account's jobs of a kind not deleted, newest first, with the database's time now. */
  async listByAccount(accountId: string, kind: string, limit: number): Promise<(JobRow & { now: number })[]> {
    const rows = await this.store.all<Record<string, unknown>>(
      `SELECT j.*, ${this.now} AS now FROM jobs j WHERE j.account_id = $1 AND j.kind = $2 AND j.deleted_at IS NULL ORDER BY j.created_at DESC LIMIT $3`,
      [accountId, kind, limit],
    );
    return rows.map((r) => ({ ...toRow(r), now: Number(r.now) }));
  }

  /** Run times (claim to finish, ms) of the model's latest successful jobs. */
  async recentDurations(modelId: string, limit = 50): Promise<number[]> {
    const rows = await this.store.all<{ ms: number }>(
      `SELECT finished_at - started_at AS ms FROM jobs WHERE model_id = $1 AND status = 'succeeded' AND started_at IS NOT NULL
       ORDER BY finished_at DESC LIMIT $2`,
      [modelId, limit],
    );
    return rows.map((r) => Number(r.ms));
  }
}

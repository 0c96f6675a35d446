// The alerts tables' statements (migration 37), every one scoped to its account. Times are the database's clock
// (`nowSql`), so leases and retry times mean the same on every instance.
//  - alert_settings: the owner's thresholds and channels (the webhook secret sealed when there is a secrets key).
//  - alert_state: each subject's last alerted level; a crossing is decided under the row's lock and writes its
//    deliveries in the same transaction, so it fires once however many instances evaluate it, and survives a crash.
//  - alert_deliveries: the outbox. A worker claims a due row under a lease (`FOR UPDATE SKIP LOCKED` on PostgreSQL,
//    SQLite's one server holds the write lock), sends it, and records the outcome only while the lease is its own;
//    a worker that died leaves a lease that expires, and the row is sent again (receivers dedupe on `webhook-id`).
import { randomUUID } from 'node:crypto';
import { nowSql } from '../billing/instance-lease.ts';
import { periodKey } from '../billing/key-limits.ts';
import { diemEpoch } from '../billing/money.ts';
import type { Param, Queryable, Store } from '../db/store.ts';
import type { SecretBox } from '../db/secret-box.ts';
import { isSealed } from '../db/secret-box.ts';
import { type AlertEvent, balanceReading, budgetReading, type Reading, type Stored, step } from './rules.ts';
import { newWebhookSecret } from './signature.ts';

export type Channel = 'email' | 'webhook';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface AlertSettings {
  email: string | null;
  webhookUrl: string | null;
  webhookSecret: string;
  /** Micro-units; null: off. */
  lowUsd: number | null;
  lowDiem: number | null;
  keyBudgets: boolean;
}

export interface DeliveryRow {
  id: string;
  account_id: string;
  event_id: string;
  event: string;
  channel: Channel;
  target: string;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number;
  response_code: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

/** The JSON body of a webhook (and what a mail says): the event with its id, time and account. */
export type EventBody = AlertEvent & { id: string; created_at: string; account_id: string };

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toDelivery(r: Record<string, unknown>): DeliveryRow {
  return {
    ...(r as unknown as DeliveryRow),
    attempts: Number(r.attempts),
    next_attempt_at: Number(r.next_attempt_at),
    response_code: num(r.response_code),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

export class AlertStore {
  readonly store: Store;
  private readonly secrets: SecretBox | undefined;
  private readonly now: string;
  private readonly skipLocked: string;

  constructor(store: Store, secrets: SecretBox | undefined) {
    this.store = store;
    this.secrets = secrets;
    this.now = nowSql(store);
    this.skipLocked = store.kind === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
  }

  private context = (accountId: string) => `alert_settings:${accountId}`;
  private seal = (accountId: string, secret: string) => (this.secrets ? this.secrets.seal(secret, this.context(accountId)) : secret);
  private open = (accountId: string, stored: string) => (isSealed(stored) && this.secrets ? this.secrets.open(stored, this.context(accountId)) : stored);

  async settings(accountId: string, q: Queryable = this.store): Promise<AlertSettings | undefined> {
    const r = await q.get<Record<string, unknown>>('SELECT * FROM alert_settings WHERE account_id = $1', [accountId]);
    if (!r) return undefined;
    return {
      email: (r.email as string | null) ?? null,
      webhookUrl: (r.webhook_url as string | null) ?? null,
      webhookSecret: this.open(accountId, r.webhook_secret as string),
      lowUsd: num(r.low_usd),
      lowDiem: num(r.low_diem),
      keyBudgets: Boolean(r.key_budgets),
    };
  }

  /** Saves the settings (a first save makes the webhook secret); returns them as stored. */
  async save(accountId: string, s: Omit<AlertSettings, 'webhookSecret'>): Promise<AlertSettings> {
    const secret = this.seal(accountId, newWebhookSecret());
    await this.store.run(
      `INSERT INTO alert_settings (account_id, email, webhook_url, webhook_secret, low_usd, low_diem, key_budgets, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, ${this.now})
       ON CONFLICT (account_id) DO UPDATE SET email = excluded.email, webhook_url = excluded.webhook_url, low_usd = excluded.low_usd,
         low_diem = excluded.low_diem, key_budgets = excluded.key_budgets, updated_at = excluded.updated_at`,
      [accountId, s.email, s.webhookUrl, secret, s.lowUsd, s.lowDiem, s.keyBudgets],
    );
    return (await this.settings(accountId))!;
  }

  /** A new webhook secret; the old one stops signing at once. */
  async rotateSecret(accountId: string): Promise<void> {
    await this.store.run(`UPDATE alert_settings SET webhook_secret = $2, updated_at = ${this.now} WHERE account_id = $1`, [
      accountId,
      this.seal(accountId, newWebhookSecret()),
    ]);
  }

  /** Accounts with alert settings, a page at a time (the sweep). */
  async accounts(after: string, limit: number): Promise<string[]> {
    const rows = await this.store.all<{ account_id: string }>('SELECT account_id FROM alert_settings WHERE account_id > $1 ORDER BY account_id LIMIT $2', [
      after,
      limit,
    ]);
    return rows.map((r) => r.account_id);
  }

  /** Every subject's level now, by the account's settings (`now`: ms, for the DIEM day and the budgets' periods). */
  async readings(accountId: string, s: AlertSettings, now: number): Promise<Reading[]> {
    const out: Reading[] = [];
    if (s.lowUsd !== null || s.lowDiem !== null) {
      const a = await this.store.get<Record<string, unknown>>('SELECT usd, diem, diem_daily, diem_epoch FROM accounts WHERE id = $1', [accountId]);
      if (a) {
        // A new UTC day's DIEM is the daily allowance, though the row is refilled only when next touched.
        const diem = a.diem_epoch === diemEpoch(now) ? Number(a.diem) : Number(a.diem_daily);
        if (s.lowUsd !== null) out.push(balanceReading('USD', Number(a.usd), s.lowUsd));
        if (s.lowDiem !== null) out.push(balanceReading('DIEM', diem, s.lowDiem));
      }
    }
    if (s.keyBudgets) {
      const keys = await this.store.all<Record<string, unknown>>(
        `SELECT id, description, limit_usd, limit_diem, limit_period, spent_usd, spent_diem, spent_period FROM api_keys
         WHERE account_id = $1 AND revoked_at IS NULL AND (limit_usd IS NOT NULL OR limit_diem IS NOT NULL)`,
        [accountId],
      );
      for (const k of keys) {
        const period = periodKey(String(k.limit_period), now);
        const current = k.spent_period === period;
        const key = { id: String(k.id), name: String(k.description || k.id), limitPeriod: String(k.limit_period) };
        if (k.limit_usd !== null) out.push(budgetReading(key, 'USD', current ? Number(k.spent_usd) : 0, Number(k.limit_usd), period));
        if (k.limit_diem !== null) out.push(budgetReading(key, 'DIEM', current ? Number(k.spent_diem) : 0, Number(k.limit_diem), period));
      }
    }
    return out;
  }

  /** Each subject's stored state (a read without locks: `apply` decides again under the row's lock). */
  async states(accountId: string): Promise<Map<string, Stored>> {
    const rows = await this.store.all<{ subject: string; level: number; period: string }>(
      'SELECT subject, level, period FROM alert_state WHERE account_id = $1',
      [accountId],
    );
    return new Map(rows.map((r) => [r.subject, { level: Number(r.level), period: r.period }]));
  }

  /**
   * Applies one reading: under the state row's lock, the step is decided again (another instance may have got
   * there first) and, on a crossing, the event's deliveries are written in the same transaction. Returns the event
   * when this call fired it.
   */
  apply(accountId: string, reading: Reading, channels: (s: AlertSettings) => { channel: Channel; target: string }[]): Promise<EventBody | undefined> {
    return this.store.tx(async (q) => {
      await q.run(`INSERT INTO alert_state (account_id, subject, level, period, updated_at) VALUES ($1, $2, 0, '', ${this.now}) ON CONFLICT DO NOTHING`, [
        accountId,
        reading.subject,
      ]);
      const row = await q.get<Stored>(`SELECT level, period FROM alert_state WHERE account_id = $1 AND subject = $2${this.store.forUpdate}`, [
        accountId,
        reading.subject,
      ]);
      const { fire, next } = step(row && { level: Number(row.level), period: row.period }, { level: reading.level, period: reading.period });
      if (!next) return undefined;
      await q.run(`UPDATE alert_state SET level = $3, period = $4, updated_at = ${this.now} WHERE account_id = $1 AND subject = $2`, [
        accountId,
        reading.subject,
        next.level,
        next.period,
      ]);
      if (!fire) return undefined;
      const settings = await this.settings(accountId, q);
      if (!settings) return undefined;
      return this.enqueueIn(q, accountId, reading.event, channels(settings));
    });
  }

  /** Writes an event's deliveries (one per channel), due now. */
  enqueue(accountId: string, event: AlertEvent, targets: { channel: Channel; target: string }[]): Promise<EventBody> {
    return this.store.tx((q) => this.enqueueIn(q, accountId, event, targets));
  }

  private async enqueueIn(q: Queryable, accountId: string, event: AlertEvent, targets: { channel: Channel; target: string }[]): Promise<EventBody> {
    const clock = await q.get<{ now: number }>(`SELECT ${this.now} AS now`);
    const body: EventBody = {
      id: `evt_${randomUUID().replaceAll('-', '')}`,
      created_at: new Date(Number(clock!.now)).toISOString(),
      account_id: accountId,
      ...event,
    };
    for (const t of targets) {
      await q.run(
        `INSERT INTO alert_deliveries (id, account_id, event_id, event, channel, target, payload, next_attempt_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, ${this.now}, ${this.now}, ${this.now})`,
        [randomUUID(), accountId, body.id, event.type, t.channel, t.target, JSON.stringify(body)],
      );
    }
    return body;
  }

  /** Claims one due delivery for `owner` for `leaseMs`, counting the attempt; undefined when none is due. */
  claim(owner: string, leaseMs: number): Promise<DeliveryRow | undefined> {
    const due = `status = 'pending' AND next_attempt_at <= ${this.now} AND (lease_until IS NULL OR lease_until < ${this.now})`;
    return this.store.tx(async (q) => {
      const pick = await q.get<{ id: string }>(`SELECT id FROM alert_deliveries WHERE ${due} ORDER BY next_attempt_at, id LIMIT 1${this.skipLocked}`);
      if (!pick) return undefined;
      const n = await q.run(
        `UPDATE alert_deliveries SET lease_owner = $2, lease_until = ${this.now} + $3, attempts = attempts + 1, updated_at = ${this.now}
         WHERE id = $1 AND ${due}`,
        [pick.id, owner, leaseMs],
      );
      if (n !== 1) return undefined;
      const row = await q.get<Record<string, unknown>>('SELECT * FROM alert_deliveries WHERE id = $1 AND lease_owner = $2', [pick.id, owner]);
      return row ? toDelivery(row) : undefined;
    });
  }

  /**
   * Records an attempt's outcome while the lease is still `owner`'s: delivered, or retried after `retryInMs`, or
   * failed for good (`retryInMs` null). False when the lease was lost (another worker owns the row now).
   */
  async finish(
    id: string,
    owner: string,
    outcome: { status: DeliveryStatus; responseCode: number | null; error: string | null; retryInMs?: number | null },
  ): Promise<boolean> {
    const retry = outcome.status === 'pending';
    const n = await this.store.run(
      `UPDATE alert_deliveries SET status = $3, response_code = $4, last_error = $5, lease_owner = NULL, lease_until = NULL,
         next_attempt_at = ${retry ? `${this.now} + $6` : 'next_attempt_at'}, updated_at = ${this.now}
       WHERE id = $1 AND lease_owner = $2 AND status = 'pending'`,
      (retry
        ? [id, owner, outcome.status, outcome.responseCode, outcome.error, outcome.retryInMs ?? 0]
        : [id, owner, outcome.status, outcome.responseCode, outcome.error]) as Param[],
    );
    return n === 1;
  }

  /** The account's delivery log, newest first. */
  async log(accountId: string, page: number, limit: number): Promise<{ items: DeliveryRow[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.store.all<Record<string, unknown>>(`SELECT * FROM alert_deliveries WHERE account_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`, [
        accountId,
        limit,
        (page - 1) * limit,
      ]),
      this.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM alert_deliveries WHERE account_id = $1', [accountId]),
    ]);
    return { items: rows.map(toDelivery), total: Number(count?.n ?? 0) };
  }
}

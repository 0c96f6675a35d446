// The log of refused requests behind GET /api_keys/rate_limits/log (table rate_limit_breaches, migration 2).
import { randomUUID } from 'node:crypto';
import type { Store } from '../db/store.ts';
import { recordRefusal } from '../metrics/registry.ts';

export type BreachType = 'RPM' | 'RPD' | 'TPM' | 'FAILED_REQUESTS';

export interface Breach {
  accountId: string | null;
  keyId: string | null;
  modelId: string;
  type: BreachType;
  tier: string;
  /** ms since the epoch; now by default. */
  at?: number;
}

/** The reference's log item. */
export interface BreachLogItem {
  apiKeyId: string | null;
  modelId: string;
  rateLimitTier: string;
  rateLimitType: BreachType;
  timestamp: string;
}

/** Rows kept per account; the endpoint shows 50, the rest is headroom for a larger page later. */
export const BREACHES_KEPT = 500;
/** Trim an account's rows on every this-many-th breach it records in this process. */
export const TRIM_EVERY = 50;

// Per-account insert counts since the last trim. Cleared wholesale when it grows large: an account that loses
// its count is trimmed a little later, which keeps the table bounded all the same.
const sinceTrim = new Map<string, number>();

export async function recordBreach(store: Store, b: Breach): Promise<void> {
  recordRefusal(b.type);
  const at = b.at ?? Date.now();
  await store.run('INSERT INTO rate_limit_breaches (id, account_id, key_id, model_id, type, tier, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    randomUUID(),
    b.accountId,
    b.keyId,
    b.modelId,
    b.type,
    b.tier,
    at,
  ]);
  const account = b.accountId ?? '';
  const n = (sinceTrim.get(account) ?? 0) + 1;
  if (n < TRIM_EVERY) {
    if (sinceTrim.size >= 10_000) sinceTrim.clear();
    sinceTrim.set(account, n);
    return;
  }
  sinceTrim.delete(account);
  await trimAccount(store, b.accountId);
}

/** Deletes an account's rows older than its newest BREACHES_KEPT (rows with the cut-off time itself stay). */
async function trimAccount(store: Store, accountId: string | null): Promise<void> {
  const where = accountId === null ? 'account_id IS NULL' : 'account_id = $1';
  const params = accountId === null ? [] : [accountId];
  const cutoff = await store.get<{ created_at: number | string }>(
    `SELECT created_at FROM rate_limit_breaches WHERE ${where} ORDER BY created_at DESC LIMIT 1 OFFSET ${BREACHES_KEPT - 1}`,
    params,
  );
  if (!cutoff) return;
  await store.run(`DELETE FROM rate_limit_breaches WHERE ${where} AND created_at < $${params.length + 1}`, [...params, Number(cutoff.created_at)]);
}

/** An account's newest breaches first. */
export async function listBreaches(store: Store, accountId: string, limit = 50): Promise<BreachLogItem[]> {
  const rows = await store.all<{ key_id: string | null; model_id: string; type: BreachType; tier: string; created_at: number | string }>(
    'SELECT key_id, model_id, type, tier, created_at FROM rate_limit_breaches WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2',
    [accountId, Math.max(0, Math.floor(limit))],
  );
  return rows.map((r) => ({
    apiKeyId: r.key_id,
    modelId: r.model_id,
    rateLimitTier: r.tier,
    rateLimitType: r.type,
    timestamp: new Date(Number(r.created_at)).toISOString(),
  }));
}

export interface BreachFilter {
  keyId?: string;
  modelId?: string;
  type?: BreachType;
  /** Inclusive lower bound (ms). */
  from?: number;
  /** Exclusive upper bound (ms). */
  to?: number;
  /** 1-based. */
  page: number;
  limit: number;
}

/** One page of an account's breaches, newest first, filtered, and how many match in all (the account is always `$1`). */
export async function queryBreaches(store: Store, accountId: string, f: BreachFilter): Promise<{ items: BreachLogItem[]; total: number }> {
  if (!Number.isSafeInteger(f.page) || f.page < 1 || !Number.isSafeInteger(f.limit) || f.limit < 1)
    throw new RangeError('page and limit must be positive integers');
  const params: (string | number)[] = [accountId];
  const where = ['account_id = $1'];
  const add = (sql: string, v: string | number) => {
    params.push(v);
    where.push(`${sql} $${params.length}`);
  };
  if (f.keyId !== undefined) add('key_id =', f.keyId);
  if (f.modelId !== undefined) add('model_id =', f.modelId);
  if (f.type !== undefined) add('type =', f.type);
  if (f.from !== undefined) add('created_at >=', f.from);
  if (f.to !== undefined) add('created_at <', f.to);
  const w = where.join(' AND ');
  const counted = await store.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM rate_limit_breaches WHERE ${w}`, params);
  const total = Number(counted?.n ?? 0);
  const offset = (f.page - 1) * f.limit;
  if (offset >= total) return { items: [], total };
  const rows = await store.all<{ key_id: string | null; model_id: string; type: BreachType; tier: string; created_at: number | string }>(
    `SELECT key_id, model_id, type, tier, created_at FROM rate_limit_breaches WHERE ${w}
     ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, f.limit, offset],
  );
  return {
    items: rows.map((r) => ({
      apiKeyId: r.key_id,
      modelId: r.model_id,
      rateLimitTier: r.tier,
      rateLimitType: r.type,
      timestamp: new Date(Number(r.created_at)).toISOString(),
    })),
    total,
  };
}

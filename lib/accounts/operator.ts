// What the operator sees of every account (balances, live keys, recent spend, tier, owner, disabled), and the audit
// log of the operator's actions (who did what to which account, when). Portable SQL (SQLite and PostgreSQL).
import { randomUUID } from 'node:crypto';
import type { Param, Store } from '../db/store.ts';
import { diemEpoch } from '../billing/money.ts';

const DAY_MS = 86_400_000;

export interface AccountOverview {
  id: string;
  name: string;
  tier: string;
  createdAt: number;
  disabledAt: number | null;
  /** Micro-units: USD credit, today's DIEM (the allowance refilled on a new UTC day) and the daily allowance. */
  usd: number;
  diem: number;
  diemDaily: number;
  /** Live API keys (not revoked, not expired), the server-held ones included. */
  keys: number;
  /** What the account spent over the last 30 days (micro-units). */
  spentUsd: number;
  spentDiem: number;
  /** The email of its browser-app user, or the wallet that owns it (namespace:address); null for an API-only account. */
  email: string | null;
  wallet: string | null;
  /** The account of the operator (the first user). */
  operator: boolean;
}

interface OverviewRow {
  id: string;
  name: string;
  tier: string;
  created_at: number | string;
  disabled_at: number | string | null;
  usd: number | string;
  diem: number | string;
  diem_daily: number | string;
  diem_epoch: string;
  keys: number | string;
  spent_usd: number | string | null;
  spent_diem: number | string | null;
  email: string | null;
  wallet: string | null;
  operator: number | string | boolean | null;
}

/** `%text%` for LIKE, with the pattern characters of the text escaped (ESCAPE '\'). */
const likeAny = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * One page of accounts, newest first: optionally only those whose id, name, user email or wallet address contains
 * `search`, or the one account `id`.
 */
export async function accountOverview(
  store: Store,
  q: { search?: string; id?: string; page: number; limit: number },
  now = Date.now(),
): Promise<{ accounts: AccountOverview[]; total: number }> {
  // The search clause with its pattern as parameter $n (the count query and the page query number them differently).
  const matching = (n: number) =>
    q.id !== undefined
      ? `a.id = $${n}`
      : q.search
        ? `(LOWER(a.id) LIKE $${n} ESCAPE '\\' OR LOWER(a.name) LIKE $${n} ESCAPE '\\'
      OR EXISTS (SELECT 1 FROM users us WHERE us.account_id = a.id AND LOWER(us.email) LIKE $${n} ESCAPE '\\')
      OR EXISTS (SELECT 1 FROM wallets w WHERE w.account_id = a.id AND LOWER(w.address) LIKE $${n} ESCAPE '\\'))`
        : '1 = 1';
  const search: Param[] = q.id !== undefined ? [q.id] : q.search ? [likeAny(q.search)] : [];
  const counted = await store.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM accounts a WHERE ${matching(1)}`, search);
  const total = Number(counted?.n ?? 0);
  const params: Param[] = [now, now - 30 * DAY_MS, ...search];
  const where = matching(3);
  const offset = (q.page - 1) * q.limit;
  if (offset >= total) return { accounts: [], total };
  const rows = await store.all<OverviewRow>(
    `SELECT a.id, a.name, a.tier, a.created_at, a.disabled_at, a.usd, a.diem, a.diem_daily, a.diem_epoch,
       (SELECT COUNT(*) FROM api_keys k WHERE k.account_id = a.id AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $1)) AS keys,
       (SELECT SUM(u.usd) FROM usage u WHERE u.account_id = a.id AND u.created_at >= $2) AS spent_usd,
       (SELECT SUM(u.diem) FROM usage u WHERE u.account_id = a.id AND u.created_at >= $2) AS spent_diem,
       (SELECT us.email FROM users us WHERE us.account_id = a.id AND us.wallet_id IS NULL ORDER BY us.created_at LIMIT 1) AS email,
       (SELECT w.namespace || ':' || w.address FROM wallets w WHERE w.account_id = a.id ORDER BY w.created_at LIMIT 1) AS wallet,
       (SELECT COUNT(*) FROM users us WHERE us.account_id = a.id AND us.is_admin = TRUE) AS operator
     FROM accounts a WHERE ${where}
     ORDER BY a.created_at DESC, a.id
     LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, q.limit, offset],
  );
  const today = diemEpoch(now);
  return {
    accounts: rows.map((r) => ({
      id: r.id,
      name: r.name,
      tier: r.tier,
      createdAt: Number(r.created_at),
      disabledAt: r.disabled_at === null ? null : Number(r.disabled_at),
      usd: Number(r.usd),
      // Reads write nothing: a new UTC day's refill shows here as the ledger applies it on the next request.
      diem: r.diem_epoch === today ? Number(r.diem) : Number(r.diem_daily),
      diemDaily: Number(r.diem_daily),
      keys: Number(r.keys),
      spentUsd: Number(r.spent_usd ?? 0),
      spentDiem: Number(r.spent_diem ?? 0),
      email: r.email,
      wallet: r.wallet,
      operator: Number(r.operator ?? 0) > 0,
    })),
    total,
  };
}

// password_reset names the account whose user it was; the model_* actions change the server's catalogue, not an
// account, and are recorded with an empty account id. The moderation actions name the account of the user affected
// (the character's owner, the review's author; empty for a server-owned character).
// The list is written once, here: the browser's wire type (lib/operator/wire.ts) is this one.
export type AuditAction =
  | 'grant'
  | 'diem_daily'
  | 'tier'
  | 'disable'
  | 'enable'
  | 'password_reset'
  | 'second_factor_clear'
  | 'model_add'
  | 'model_update'
  | 'model_remove'
  | 'character_unpublish'
  | 'review_remove'
  | 'mcp_add'
  | 'mcp_update'
  | 'mcp_remove';

export interface AuditEntry {
  id: string;
  /** The operator's user id and how they are known (email). */
  actorUserId: string;
  actor: string;
  action: AuditAction;
  accountId: string;
  details: Record<string, unknown>;
  at: number;
}

export async function recordAudit(
  store: Store,
  e: { actorUserId: string; actor: string; action: AuditAction; accountId: string; details: Record<string, unknown> },
  now = Date.now(),
): Promise<AuditEntry> {
  const entry: AuditEntry = { id: randomUUID(), ...e, at: now };
  await store.run('INSERT INTO operator_audit (id, actor_user_id, actor, action, account_id, details, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    entry.id,
    entry.actorUserId,
    entry.actor,
    entry.action,
    entry.accountId,
    JSON.stringify(entry.details),
    now,
  ]);
  return entry;
}

/** One page of the audit log, newest first (optionally for one account). */
export async function listAudit(store: Store, q: { accountId?: string; page: number; limit: number }): Promise<{ entries: AuditEntry[]; total: number }> {
  const params: Param[] = [];
  let where = '1 = 1';
  if (q.accountId) {
    params.push(q.accountId);
    where = 'account_id = $1';
  }
  const counted = await store.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM operator_audit WHERE ${where}`, params);
  const total = Number(counted?.n ?? 0);
  const offset = (q.page - 1) * q.limit;
  if (offset >= total) return { entries: [], total };
  const rows = await store.all<{
    id: string;
    actor_user_id: string;
    actor: string;
    action: AuditAction;
    account_id: string;
    details: string;
    created_at: number | string;
  }>(
    `SELECT id, actor_user_id, actor, action, account_id, details, created_at FROM operator_audit WHERE ${where}
     ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, q.limit, offset],
  );
  return {
    entries: rows.map((r) => ({
      id: r.id,
      actorUserId: r.actor_user_id,
      actor: r.actor,
      action: r.action,
      accountId: r.account_id,
      details: safeJson(r.details),
      at: Number(r.created_at),
    })),
    total,
  };
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

// API keys. The secret is shown once at creation; only its SHA-256 (and the last six characters, for display)
// is stored. Key management queries are scoped to one account by construction (accountKeys).
import { hash, randomBytes, randomUUID } from 'node:crypto';
import { refuseDisabledAccount } from '../accounts/accounts.ts';
import { ApiError } from '../api/errors.ts';
import { type KeyLimit, type LimitPeriod, periodKey } from '../billing/key-limits.ts';
import type { Store } from '../db/store.ts';

export type { LimitPeriod };

export type KeyType = 'INFERENCE' | 'ADMIN';
export const KEY_TYPES: readonly KeyType[] = ['INFERENCE', 'ADMIN'];

/** Which models a key is meant for, as the public key object says: every model, or private ones for text, or for all. */
export type ModelPrivacy = 'ALL' | 'PRIVATE_TEXT' | 'PRIVATE_ONLY';
export const MODEL_PRIVACY: readonly ModelPrivacy[] = ['ALL', 'PRIVATE_TEXT', 'PRIVATE_ONLY'];

export interface ApiKey {
  id: string;
  accountId: string;
  type: KeyType;
  description: string;
  last6: string;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
  limitUsd: number | null;
  limitDiem: number | null;
  limitPeriod: LimitPeriod;
  modelPrivacy: ModelPrivacy;
  /** The only models the key may run (catalogue ids); null: any (Lagoon's own field, not the public API's). */
  allowedModels: string[] | null;
  /** The server-held key the browser app acts through for a user (never shown to anyone as a secret). */
  browserApp: boolean;
  /** A team's key: the member (user id) it acts for, whose usage it is and who must still be a member (lib/teams). */
  memberId: string | null;
}

/** The caller of a request, once authenticated. */
export interface Principal {
  accountId: string;
  accountTier: string;
  keyId: string;
  keyType: KeyType;
  key: ApiKey;
}

interface KeyRow {
  id: string;
  account_id: string;
  type: string;
  description: string;
  last6: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
  limit_usd: number | null;
  limit_diem: number | null;
  limit_period: string;
  model_privacy: string;
  browser_app: number | string;
  allowed_models: string | null;
  member_id: string | null;
}

const KEY_COLUMNS =
  'k.id, k.account_id, k.type, k.description, k.last6, k.created_at, k.expires_at, k.revoked_at, k.last_used_at, k.limit_usd, k.limit_diem, k.limit_period, k.model_privacy, k.browser_app, k.allowed_models, k.member_id';

/** A key of account $1 with id $2 that is usable at time $3. */
const LIVE_KEY = 'k.account_id = $1 AND k.id = $2 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $3)';

const toKey = (r: KeyRow): ApiKey => ({
  id: r.id,
  accountId: r.account_id,
  type: r.type as KeyType,
  description: r.description,
  last6: r.last6,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  lastUsedAt: r.last_used_at,
  limitUsd: r.limit_usd,
  limitDiem: r.limit_diem,
  limitPeriod: r.limit_period as LimitPeriod,
  modelPrivacy: (r.model_privacy ?? 'ALL') as ModelPrivacy,
  allowedModels: r.allowed_models ? (JSON.parse(r.allowed_models) as string[]) : null,
  browserApp: Number(r.browser_app) === 1,
  memberId: r.member_id ?? null,
});

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `lgn_inf_…` / `lgn_adm_…` followed by 40 base62 characters (~238 bits). */
export function generateSecret(type: KeyType): string {
  const bytes = randomBytes(40);
  let body = '';
  for (const b of bytes) body += ALPHABET[b % 62];
  return `lgn_${type === 'ADMIN' ? 'adm' : 'inf'}_${body}`;
}

/** The key's consumption limits for the ledger, when it has any. */
export function keyLimitOf(key: ApiKey): KeyLimit | undefined {
  if (key.limitUsd === null && key.limitDiem === null) return undefined;
  return { keyId: key.id, usd: key.limitUsd, diem: key.limitDiem, period: key.limitPeriod };
}

export const hashSecret = (secret: string): string => hash('sha256', secret, 'hex');

export interface KeyPatch {
  description?: string;
  expiresAt?: number | null;
  limitUsd?: number | null;
  limitDiem?: number | null;
  limitPeriod?: LimitPeriod;
  modelPrivacy?: ModelPrivacy;
  allowedModels?: string[] | null;
}

export interface KeySpending {
  week: { usd: number; diem: number };
  period: { usd: number; diem: number };
}

export interface NewKey {
  type: KeyType;
  description?: string;
  expiresAt?: number | null;
  limitUsd?: number | null;
  limitDiem?: number | null;
  limitPeriod?: LimitPeriod;
  modelPrivacy?: ModelPrivacy;
  allowedModels?: string[] | null;
  /** The key the browser app acts through for the account's user (one per user, made at sign-up). */
  browserApp?: boolean;
  /** A team's key made by or for this member (user id). */
  memberId?: string | null;
}

/** The key operations of one account: every statement carries its account id. */
export function accountKeys(store: Store, accountId: string) {
  return {
    async create(input: NewKey): Promise<{ key: ApiKey; secret: string }> {
      const secret = generateSecret(input.type);
      const key: ApiKey = {
        id: randomUUID(),
        accountId,
        type: input.type,
        description: input.description ?? '',
        last6: secret.slice(-6),
        createdAt: Date.now(),
        expiresAt: input.expiresAt ?? null,
        revokedAt: null,
        lastUsedAt: null,
        limitUsd: input.limitUsd ?? null,
        limitDiem: input.limitDiem ?? null,
        limitPeriod: input.limitPeriod ?? 'EPOCH',
        modelPrivacy: input.modelPrivacy ?? 'ALL',
        allowedModels: input.allowedModels ?? null,
        browserApp: input.browserApp ?? false,
        memberId: input.memberId ?? null,
      };
      await store.run(
        `INSERT INTO api_keys (id, account_id, key_hash, last6, type, description, created_at, expires_at, limit_usd, limit_diem, limit_period, model_privacy, browser_app, allowed_models, member_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
        [
          key.id,
          accountId,
          hashSecret(secret),
          key.last6,
          key.type,
          key.description,
          key.createdAt,
          key.expiresAt,
          key.limitUsd,
          key.limitDiem,
          key.limitPeriod,
          key.modelPrivacy,
          key.browserApp ? 1 : 0,
          key.allowedModels ? JSON.stringify(key.allowedModels) : null,
          key.memberId,
        ],
      );
      return { key, secret };
    },
    async get(id: string): Promise<ApiKey | undefined> {
      const row = await store.get<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.account_id = $1 AND k.id = $2`, [accountId, id]);
      return row && toKey(row);
    },
    /** Keys that can still be used, newest first. */
    async countActive(now = Date.now()): Promise<number> {
      const r = await store.get<{ n: number }>(
        'SELECT COUNT(*) AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)',
        [accountId, now],
      );
      return Number(r?.n ?? 0);
    },
    async listActive(now = Date.now()): Promise<ApiKey[]> {
      const rows = await store.all<KeyRow>(
        `SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.account_id = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2)
         ORDER BY k.created_at DESC, k.id`,
        [accountId, now],
      );
      return rows.map(toKey);
    },
    /** Every key, live ones first, then newest first; at most `limit`. */
    async list(limit: number): Promise<ApiKey[]> {
      const rows = await store.all<KeyRow>(
        `SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.account_id = $1
         ORDER BY CASE WHEN k.revoked_at IS NULL THEN 0 ELSE 1 END, k.created_at DESC, k.id
         LIMIT $2`,
        [accountId, limit],
      );
      return rows.map(toKey);
    },
    /** The live key the browser app acts through, when there is one: the account's own, or in a team this member's. */
    async browserKey(now = Date.now(), memberId: string | null = null): Promise<ApiKey | undefined> {
      const member = memberId === null ? 'k.member_id IS NULL' : 'k.member_id = $3';
      const row = await store.get<KeyRow>(
        `SELECT ${KEY_COLUMNS} FROM api_keys k
         WHERE k.account_id = $1 AND k.browser_app = 1 AND k.type = 'INFERENCE' AND ${member} AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2)
         ORDER BY k.created_at, k.id LIMIT 1`,
        memberId === null ? [accountId, now] : [accountId, now, memberId],
      );
      return row && toKey(row);
    },
    /** When each key last made a billed request (a use even when no bearer secret authenticated it). */
    async lastBilledAt(): Promise<Map<string, number>> {
      const rows = await store.all<{ key_id: string; at: number | string }>(
        'SELECT key_id, MAX(created_at) AS at FROM usage WHERE account_id = $1 AND key_id IS NOT NULL GROUP BY key_id',
        [accountId],
      );
      return new Map(rows.map((r) => [r.key_id, Number(r.at)]));
    },
    /** Changes a live key's description, expiry or limits (never its type); false when no such live key. */
    async update(id: string, patch: KeyPatch, now = Date.now()): Promise<ApiKey | undefined> {
      const sets: string[] = [];
      const params: (string | number | null)[] = [accountId, id, now];
      const set = (column: string, value: string | number | null) => {
        params.push(value);
        sets.push(`${column} = $${params.length}`);
      };
      if (patch.description !== undefined) set('description', patch.description);
      if (patch.expiresAt !== undefined) set('expires_at', patch.expiresAt);
      if (patch.limitUsd !== undefined) set('limit_usd', patch.limitUsd);
      if (patch.limitDiem !== undefined) set('limit_diem', patch.limitDiem);
      if (patch.limitPeriod !== undefined) set('limit_period', patch.limitPeriod);
      if (patch.modelPrivacy !== undefined) set('model_privacy', patch.modelPrivacy);
      if (patch.allowedModels !== undefined) set('allowed_models', patch.allowedModels === null ? null : JSON.stringify(patch.allowedModels));
      if (sets.length && (await store.run(`UPDATE api_keys AS k SET ${sets.join(', ')} WHERE ${LIVE_KEY}`, params)) !== 1) return undefined;
      forgetPrincipals(store);
      const row = await store.get<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys k WHERE ${LIVE_KEY}`, [accountId, id, now]);
      return row && toKey(row);
    },
    /** What each key spent over the last 7 days and in its current limit period (micro-units). */
    async spending(now = Date.now()): Promise<Map<string, KeySpending>> {
      const out = new Map<string, KeySpending>();
      const week = await store.all<{ key_id: string; usd: number; diem: number }>(
        'SELECT key_id, SUM(usd) AS usd, SUM(diem) AS diem FROM usage WHERE account_id = $1 AND created_at >= $2 AND key_id IS NOT NULL GROUP BY key_id',
        [accountId, now - 7 * 86_400_000],
      );
      for (const r of week) out.set(r.key_id, { week: { usd: Number(r.usd), diem: Number(r.diem) }, period: { usd: 0, diem: 0 } });
      const periods = await store.all<{ id: string; spent_usd: number; spent_diem: number; spent_period: string; limit_period: string }>(
        'SELECT id, spent_usd, spent_diem, spent_period, limit_period FROM api_keys WHERE account_id = $1',
        [accountId],
      );
      for (const r of periods) {
        if (r.spent_period !== periodKey(r.limit_period, now)) continue;
        const entry = out.get(r.id) ?? { week: { usd: 0, diem: 0 }, period: { usd: 0, diem: 0 } };
        entry.period = { usd: r.spent_usd, diem: r.spent_diem };
        out.set(r.id, entry);
      }
      return out;
    },
    async revoke(id: string, now = Date.now()): Promise<boolean> {
      const done =
        (await store.run('UPDATE api_keys SET revoked_at = $3 WHERE account_id = $1 AND id = $2 AND revoked_at IS NULL', [accountId, id, now])) === 1;
      forgetPrincipals(store);
      return done;
    },
  };
}

// last_used_at is written at most once a minute per key, so authentication stays a single read.
const LAST_USED_RESOLUTION_MS = 60_000;
const lastUsedWritten = new Map<string, number>();

// Authenticated principals are cached briefly, so the hot path needs no read per request. A revocation made by this
// process clears the cache at once; one made by another instance (shared PostgreSQL) takes effect within the TTL.
const PRINCIPAL_TTL_MS = 5_000;
const PRINCIPAL_CACHE_MAX = 10_000;
const principalCache = new WeakMap<Store, Map<string, { principal: Principal; until: number }>>();

function cacheOf(store: Store) {
  let c = principalCache.get(store);
  if (!c) principalCache.set(store, (c = new Map()));
  return c;
}

/** Forgets cached principals (after a key or account change that must take effect at once). */
export const forgetPrincipals = (store: Store): void => principalCache.get(store)?.clear();

interface PrincipalRow extends KeyRow {
  tier: string;
  disabled_at: number | string | null;
  member_role: string | null;
}

function noteUse(store: Store, keyId: string, now: number) {
  if (now - (lastUsedWritten.get(keyId) ?? 0) < LAST_USED_RESOLUTION_MS) return;
  lastUsedWritten.set(keyId, now);
  store.run('UPDATE api_keys SET last_used_at = $2 WHERE id = $1', [keyId, now]).catch(() => lastUsedWritten.delete(keyId));
}

/** Resolves a bearer secret to its principal, or throws 401. */
export async function authenticate(store: Store, secret: string | undefined, now = Date.now()): Promise<Principal> {
  if (!secret) throw new ApiError('AUTHENTICATION_FAILED');
  const digest = hashSecret(secret);
  const cache = cacheOf(store);
  const hit = cache.get(digest);
  if (hit && hit.until > now && (hit.principal.key.expiresAt === null || hit.principal.key.expiresAt > now)) {
    noteUse(store, hit.principal.keyId, now);
    return hit.principal;
  }
  const row = await store.get<PrincipalRow>(
    `SELECT ${KEY_COLUMNS}, a.tier, a.disabled_at,
       (SELECT m.role FROM team_members m WHERE m.account_id = k.account_id AND m.user_id = k.member_id) AS member_role
     FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1`,
    [digest],
  );
  if (!row) throw new ApiError('AUTHENTICATION_FAILED');
  if (row.revoked_at !== null || (row.expires_at !== null && row.expires_at <= now)) throw new ApiError('AUTHENTICATION_FAILED_INACTIVE_KEY');
  refuseDisabledAccount(row.disabled_at);
  // A team key works only while its member is one: read from the database on every request, never cached, so a
  // removed member's keys stop at once on every instance.
  if (row.member_id && !row.member_role) throw new ApiError('AUTHENTICATION_FAILED_INACTIVE_KEY', 'The team member this key belongs to has left the team');
  const key = toKey(row);
  noteUse(store, key.id, now);
  const principal: Principal = { accountId: key.accountId, accountTier: row.tier, keyId: key.id, keyType: key.type, key };
  if (key.memberId) return principal;
  if (cache.size >= PRINCIPAL_CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(digest, { principal, until: now + PRINCIPAL_TTL_MS });
  return principal;
}

/**
 * A principal the server resolves without a bearer secret (the browser app's server-held key of an account), cached
 * under `id` as authenticate's are: the same TTL, cleared by forgetPrincipals, and never for a team member's key.
 */
export async function cachedPrincipal(store: Store, id: string, load: () => Promise<Principal>, now = Date.now()): Promise<Principal> {
  const cache = cacheOf(store);
  // A digest is 64 hex characters: an id with a prefix and a colon can never be one.
  const name = `held:${id}`;
  const hit = cache.get(name);
  if (hit && hit.until > now && (hit.principal.key.expiresAt === null || hit.principal.key.expiresAt > now)) return hit.principal;
  const principal = await load();
  if (principal.key.memberId) return principal;
  if (cache.size >= PRINCIPAL_CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(name, { principal, until: now + PRINCIPAL_TTL_MS });
  return principal;
}

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

// API keys. The secret is shown once at creation; only its SHA-256 (and the last six characters, for display)
// is stored. Key management queries are scoped to one account by construction (accountKeys).
import { hash, randomBytes, randomUUID } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';

export type KeyType = 'INFERENCE' | 'ADMIN';
export const KEY_TYPES: readonly KeyType[] = ['INFERENCE', 'ADMIN'];
export type LimitPeriod = 'EPOCH' | 'MONTH' | 'LIFETIME';

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
}

const KEY_COLUMNS = 'k.id, k.account_id, k.type, k.description, k.last6, k.created_at, k.expires_at, k.revoked_at, k.last_used_at, k.limit_usd, k.limit_diem, k.limit_period';

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
});

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `lgn_inf_…` / `lgn_adm_…` followed by 40 base62 characters (~238 bits). */
export function generateSecret(type: KeyType): string {
  const bytes = randomBytes(40);
  let body = '';
  for (const b of bytes) body += ALPHABET[b % 62];
  return `lgn_${type === 'ADMIN' ? 'adm' : 'inf'}_${body}`;
}

export const hashSecret = (secret: string): string => hash('sha256', secret, 'hex');

export interface NewKey {
  type: KeyType;
  description?: string;
  expiresAt?: number | null;
  limitUsd?: number | null;
  limitDiem?: number | null;
  limitPeriod?: LimitPeriod;
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
      };
      await store.run(
        `INSERT INTO api_keys (id, account_id, key_hash, last6, type, description, created_at, expires_at, limit_usd, limit_diem, limit_period)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [key.id, accountId, hashSecret(secret), key.last6, key.type, key.description, key.createdAt, key.expiresAt, key.limitUsd, key.limitDiem, key.limitPeriod],
      );
      return { key, secret };
    },
    async get(id: string): Promise<ApiKey | undefined> {
      const row = await store.get<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.account_id = $1 AND k.id = $2`, [accountId, id]);
      return row && toKey(row);
    },
    /** Keys that can still be used, newest first. */
    async listActive(now = Date.now()): Promise<ApiKey[]> {
      const rows = await store.all<KeyRow>(
        `SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.account_id = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2)
         ORDER BY k.created_at DESC, k.id`,
        [accountId, now],
      );
      return rows.map(toKey);
    },
    async revoke(id: string, now = Date.now()): Promise<boolean> {
      const done = (await store.run('UPDATE api_keys SET revoked_at = $3 WHERE account_id = $1 AND id = $2 AND revoked_at IS NULL', [accountId, id, now])) === 1;
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
    `SELECT ${KEY_COLUMNS}, a.tier FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1`,
    [digest],
  );
  if (!row) throw new ApiError('AUTHENTICATION_FAILED');
  if (row.revoked_at !== null || (row.expires_at !== null && row.expires_at <= now)) throw new ApiError('AUTHENTICATION_FAILED_INACTIVE_KEY');
  const key = toKey(row);
  noteUse(store, key.id, now);
  const principal: Principal = { accountId: key.accountId, accountTier: row.tier, keyId: key.id, keyType: key.type, key };
  if (cache.size >= PRINCIPAL_CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(digest, { principal, until: now + PRINCIPAL_TTL_MS });
  return principal;
}

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

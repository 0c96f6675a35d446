// GET /api/app/keys: the API keys of the session user's account, as metadata and spend only. The query names its
// columns and never selects key_hash or last6: no secret, digest or fragment of one can reach the browser from here.
import { accountKeys } from '../../auth/keys.ts';
import { fromMicros } from '../../billing/money.ts';
import { principalForUser } from '../../users/users.ts';
import type { AppDeps } from '../deps.ts';
import { appRoute, json } from '../http.ts';
import type { AppApiKey } from '../wire.ts';

// Enough for any account a person manages by hand; live keys sort first, so the cut only ever drops old revoked ones.
const MAX_KEYS = 200;

interface KeyMetaRow {
  id: string;
  type: string;
  description: string;
  created_at: number | string;
  expires_at: number | string | null;
  revoked_at: number | string | null;
  last_used_at: number | string | null;
  limit_usd: number | string | null;
  limit_diem: number | string | null;
  limit_period: string;
}

const ms = (v: number | string | null) => (v === null ? null : Number(v));
const latest = (a: number | null, b: number | undefined) => (b === undefined ? a : a === null ? b : Math.max(a, b));
const amount = (v: number | string | null) => (v === null ? null : fromMicros(Number(v)));

export function keyRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  return {
    keys: appRoute(deps, 'session', async ({ session: { user } }) => {
      const accountId = user.accountId;
      const rows = await store.all<KeyMetaRow>(
        `SELECT id, type, description, created_at, expires_at, revoked_at, last_used_at, limit_usd, limit_diem, limit_period
         FROM api_keys WHERE account_id = $1
         ORDER BY CASE WHEN revoked_at IS NULL THEN 0 ELSE 1 END, created_at DESC, id
         LIMIT $2`,
        [accountId, MAX_KEYS],
      );
      const spending = await accountKeys(store, accountId).spending();
      // last_used_at is stamped when a bearer secret authenticates; the app's own key never does (it runs as the
      // user's principal), so the key's latest billed request counts as a use too.
      const billed = await store.all<{ key_id: string; at: number | string }>(
        'SELECT key_id, MAX(created_at) AS at FROM usage WHERE account_id = $1 AND key_id IS NOT NULL GROUP BY key_id',
        [accountId],
      );
      const lastBilled = new Map(billed.map((b) => [b.key_id, Number(b.at)]));
      // The key the app chats with; a user whose key was revoked still sees the list, just with no key marked.
      const browserKeyId = await principalForUser(store, user).then((p) => p.keyId, () => null);
      const keys: AppApiKey[] = rows.map((r) => {
        const spent = spending.get(r.id);
        const capped = r.limit_usd !== null || r.limit_diem !== null;
        return {
          id: r.id,
          description: r.description,
          type: r.type === 'ADMIN' ? 'ADMIN' : 'INFERENCE',
          browserApp: r.id === browserKeyId,
          createdAt: Number(r.created_at),
          lastUsedAt: latest(ms(r.last_used_at), lastBilled.get(r.id)),
          expiresAt: ms(r.expires_at),
          revokedAt: ms(r.revoked_at),
          lastSevenDays: { usd: fromMicros(spent?.week.usd ?? 0), diem: fromMicros(spent?.week.diem ?? 0) },
          cap: capped
            ? {
                usd: amount(r.limit_usd),
                diem: amount(r.limit_diem),
                period: r.limit_period as 'EPOCH' | 'MONTH' | 'LIFETIME',
                spentUsd: fromMicros(Number(spent?.period.usd ?? 0)),
                spentDiem: fromMicros(Number(spent?.period.diem ?? 0)),
              }
            : null,
        };
      });
      return json({ keys });
    }),
  };
}

// GET /api/app/keys: the API keys of the session user's account, as metadata and spend only, read through the
// account-scoped key module (which never selects key_hash); last6 is not copied, so no secret, digest or fragment of
// one reaches the browser from here.
import { accountKeys } from '../auth/keys.ts';
import { fromMicros } from '../billing/money.ts';
import type { Store } from '../db/store.ts';
import { principalForUser, type User } from '../users/users.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json } from '../http/app-route.ts';
import type { AppApiKey } from '../wire.ts';

// Enough for any account a person manages by hand; live keys sort first, so the cut only ever drops old revoked ones.
const MAX_KEYS = 200;

const latest = (a: number | null, b: number | undefined) => (b === undefined ? a : a === null ? b : Math.max(a, b));
const amount = (v: number | null) => (v === null ? null : fromMicros(v));

/** A team member (not an admin) sees and manages only the keys they made (the session's role, read this request). */
export const seesOnlyOwnKeys = (user: User): boolean => user.team?.role === 'member';

/** The account's keys as the browser may see them (shared by GET /api/app/keys and the key pages). */
export async function appKeysOf(store: Store, user: User): Promise<AppApiKey[]> {
  // Through the scoped key module: every query carries the session user's account id.
  const keys = accountKeys(store, user.accountId);
  const [all, spending, lastBilled] = await Promise.all([keys.list(MAX_KEYS), keys.spending(), keys.lastBilledAt()]);
  // In a team, a member sees only their own keys; the owner and admins see every key of the team.
  const list = seesOnlyOwnKeys(user) ? all.filter((k) => k.memberId === user.id) : all;
  // The key the app chats with (a wallet user's is the wallet's key); a revoked one leaves no key marked.
  const browserKeyId = await principalForUser(store, user).then(
    (p) => p.keyId,
    () => null,
  );
  return list.map((k) => {
    const spent = spending.get(k.id);
    const capped = k.limitUsd !== null || k.limitDiem !== null;
    // last_used_at is stamped when a bearer secret authenticates; the app's own key never does (it runs as the
    // user's principal), so the key's latest billed request counts as a use too. No secret, digest or fragment
    // of one (last6) is copied here.
    return {
      id: k.id,
      description: k.description,
      type: k.type,
      browserApp: k.id === browserKeyId,
      createdAt: Number(k.createdAt),
      lastUsedAt: latest(k.lastUsedAt === null ? null : Number(k.lastUsedAt), lastBilled.get(k.id)),
      expiresAt: k.expiresAt === null ? null : Number(k.expiresAt),
      revokedAt: k.revokedAt === null ? null : Number(k.revokedAt),
      lastSevenDays: { usd: fromMicros(spent?.week.usd ?? 0), diem: fromMicros(spent?.week.diem ?? 0) },
      models: k.allowedModels,
      cap: capped
        ? {
            usd: amount(k.limitUsd === null ? null : Number(k.limitUsd)),
            diem: amount(k.limitDiem === null ? null : Number(k.limitDiem)),
            period: k.limitPeriod,
            spentUsd: fromMicros(Number(spent?.period.usd ?? 0)),
            spentDiem: fromMicros(Number(spent?.period.diem ?? 0)),
          }
        : null,
    };
  });
}

export function keyRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  return {
    keys: appRoute(deps, 'session', async ({ session: { user } }) => json({ keys: await appKeysOf(store, user) })),
  };
}

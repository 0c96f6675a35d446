// The key pages' routes: list, create, edit and revoke the account's API keys, with the same rules and code as the
// public API's /api_keys (lib/auth/key-input.ts: the same bodies, validation, caps and key limit). The signed-in
// user acts as the account's owner; every query goes through the account-scoped key module, so another account's
// key id is simply not found (404). The new key's secret is in the create response only, once; nothing else here
// carries a secret, a digest or a fragment of one.
import { ApiError } from '../api/errors.ts';
import { createKeyBody, createKeyFrom, DESCRIPTION_MAX, keyPatchFrom, MAX_ACTIVE_KEYS, patchKeyBody } from '../auth/key-input.ts';
import { accountKeys } from '../auth/keys.ts';
import type { Store } from '../db/store.ts';
import { principalForUser, type User } from '../users/users.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json } from '../http/app-route.ts';
import type { ApiKeysReport, AppApiKey, CreatedApiKey } from '../wire.ts';
import { appKeysOf, seesOnlyOwnKeys } from './app-list.ts';

const BODY_LIMIT = 16 * 1024;

/** The API's edit without its `id`: here the path names the key. */
const appPatchBody = patchKeyBody.omit({ id: true });

/**
 * ADMIN keys manage the account (keys, billing), so only a session that proves ownership by the account's own
 * credentials may mint one: an email user. A wallet session acts as the wallet's server-held INFERENCE key (as its
 * SIGN-IN-WITH-X requests do on the API), so it may create INFERENCE keys only.
 */
export const canCreateAdminKeys = (user: User): boolean => user.wallet === null && user.team?.role !== 'member';

/** The key the app itself acts through for this user (its chats): it cannot be revoked from here. */
const actingKeyId = (store: Store, user: User) =>
  principalForUser(store, user).then(
    (p) => p.keyId,
    () => null,
  );

async function keyView(store: Store, user: User, id: string): Promise<AppApiKey> {
  const view = (await appKeysOf(store, user)).find((k) => k.id === id);
  if (!view) throw new ApiError('NOT_FOUND', 'API key not found');
  return view;
}

const notFound = () => new ApiError('NOT_FOUND', 'API key not found');

/** A team member may change only their own keys: another member's key is not found, as another account's is. */
async function ownKey(store: Store, user: User, id: string): Promise<void> {
  if (!seesOnlyOwnKeys(user)) return;
  const key = await accountKeys(store, user.accountId).get(id);
  if (!key || key.memberId !== user.id) throw notFound();
}

export function apiKeyRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  return {
    listApiKeys: appRoute(deps, 'session', async ({ session: { user } }) => {
      const body: ApiKeysReport = {
        keys: await appKeysOf(store, user),
        canCreateAdmin: canCreateAdminKeys(user),
        maxActive: MAX_ACTIVE_KEYS,
        descriptionMax: DESCRIPTION_MAX,
      };
      return json(body);
    }),

    createApiKey: appRoute(deps, { auth: 'session+csrf', body: createKeyBody, bodyLimit: BODY_LIMIT }, async ({ session: { user }, body }) => {
      if (body.apiKeyType === 'ADMIN' && !canCreateAdminKeys(user)) {
        throw new ApiError(
          'FORBIDDEN',
          user.team
            ? 'A team member can create INFERENCE keys only: ADMIN keys are for the team’s owner and admins'
            : 'A wallet session can create INFERENCE keys only: ADMIN keys are created by an account signed in with email',
        );
      }
      // A team's key is the member's who made it: their usage, and it works while they are a member.
      const { key, secret } = await createKeyFrom(store, user.accountId, body, user.team ? user.id : null);
      const created: CreatedApiKey = { key: await keyView(store, user, key.id), secret };
      return json(created, 201);
    }),

    updateApiKey: appRoute(deps, { auth: 'session+csrf', body: appPatchBody, bodyLimit: BODY_LIMIT }, async ({ params, session: { user }, body: patch }) => {
      const body = { ...patch, id: params.id };
      await ownKey(store, user, params.id);
      const updated = await accountKeys(store, user.accountId).update(body.id, keyPatchFrom(body));
      if (!updated) throw notFound();
      return json({ key: await keyView(store, user, updated.id) });
    }),

    revokeApiKey: appRoute(deps, 'session+csrf', async ({ params, session: { user } }) => {
      const keys = accountKeys(store, user.accountId);
      const key = await keys.get(params.id);
      if (!key || key.revokedAt !== null || (seesOnlyOwnKeys(user) && key.memberId !== user.id)) throw notFound();
      if (key.id === (await actingKeyId(store, user))) {
        throw new ApiError('INVALID_REQUEST', 'This is the key the app chats with: it cannot be revoked here (cap its spend instead)', { param: 'id' });
      }
      if (!(await keys.revoke(key.id))) throw notFound();
      return json({ key: await keyView(store, user, key.id) });
    }),
  };
}

// One person, one balance: an email user links a wallet (proved by a signed SIWX message), so signing in with the
// wallet (the app, or SIGN-IN-WITH-X on the API) reaches the same user and account. The wallets row is re-pointed at
// the user's account, with a fresh server-held key there; users.linked_wallet_id records the link (users.wallet_id
// stays the mark of a wallet-only user).
//
// A wallet that already has its own account is linked only when that account is empty: no usage, no USD (balance or
// held), no live API keys besides the wallet's own, no chats. Otherwise the link is refused with a message saying so:
// nothing is merged, so no money or history can be lost or moved behind anyone's back. The emptied wallet account is
// disabled and its wallet-only user loses the wallet (that user has no other way in). The starting allowance is not
// given again: linking grants nothing.
//
// Unlinking gives the wallet a new account of its own (empty, no allowance) and its own wallet-only user, so a later
// wallet sign-in lands there and is not a newcomer; the money stays with the email user.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import { generateSecret, hashSecret } from '../auth/keys.ts';
import type { Queryable, Store } from '../db/store.ts';
import { WALLET_KEY_DESCRIPTION, findWallet, forgetWalletPrincipals } from '../wallet/wallets.ts';
import type { WalletNamespace } from '../wallet/networks.ts';
import { normaliseAddress } from '../wallet/networks.ts';
import type { User } from './rows.ts';
import { keepOneSignInMethod } from './sign-in-methods.ts';
import { shortAddress, walletUserEmail } from './wallet-users.ts';

/** Why a wallet's own account cannot be folded into another: what it holds, in words. */
async function whatItHolds(store: Store, accountId: string, walletKeyId: string): Promise<string[]> {
  const [acct, usage, keys, chats] = await Promise.all([
    store.get<{ usd: number | string; usd_held: number | string; diem_held: number | string }>('SELECT usd, usd_held, diem_held FROM accounts WHERE id = $1', [
      accountId,
    ]),
    store.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM usage WHERE account_id = $1', [accountId]),
    store.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM api_keys WHERE account_id = $1 AND id <> $2 AND revoked_at IS NULL', [accountId, walletKeyId]),
    store.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM conversations c JOIN users u ON u.id = c.user_id WHERE u.account_id = $1', [accountId]),
  ]);
  const held: string[] = [];
  if (acct && (Number(acct.usd) > 0 || Number(acct.usd_held) > 0)) held.push('a USD balance');
  if (acct && Number(acct.diem_held) > 0) held.push('requests in progress');
  if (Number(usage?.n ?? 0) > 0) held.push('usage');
  if (Number(keys?.n ?? 0) > 0) held.push('API keys');
  if (Number(chats?.n ?? 0) > 0) held.push('chats');
  return held;
}

async function newWalletKey(q: Queryable, accountId: string, now: number): Promise<string> {
  const keyId = randomUUID();
  await q.run(
    `INSERT INTO api_keys (id, account_id, key_hash, last6, type, description, created_at, limit_period)
     VALUES ($1, $2, $3, $4, 'INFERENCE', $5, $6, 'EPOCH')`,
    [keyId, accountId, hashSecret(generateSecret('INFERENCE')), '', WALLET_KEY_DESCRIPTION, now],
  );
  return keyId;
}

/** Links the wallet (already proved by its signature) to this email user; a clear 400 when it may not be. */
export async function linkWallet(store: Store, user: User, wallet: { namespace: WalletNamespace; address: string }, now = Date.now()): Promise<void> {
  if (user.wallet) throw new ApiError('INVALID_REQUEST', 'You signed in with a wallet: add an email and password instead');
  const address = normaliseAddress(wallet.namespace, wallet.address);
  if (user.linkedWallet) {
    if (user.linkedWallet.address === address && user.linkedWallet.namespace === wallet.namespace) return;
    throw new ApiError('INVALID_REQUEST', 'A wallet is already linked to this account: unlink it first');
  }
  const existing = await findWallet(store, wallet.namespace, address);
  if (existing) {
    const other = await store.get<{ id: string; wallet_id: string | null }>('SELECT id, wallet_id FROM users WHERE linked_wallet_id = $1', [existing.id]);
    if (other && other.id !== user.id) throw new ApiError('INVALID_REQUEST', 'This wallet is linked to another account');
    const held = await whatItHolds(store, existing.accountId, existing.keyId);
    if (held.length) {
      throw new ApiError(
        'INVALID_REQUEST',
        `This wallet already has its own account with ${held.join(', ')}. Linking would leave that behind, so it is refused: keep signing in with the wallet for that account, or link another wallet.`,
        { param: 'wallet' },
      );
    }
  }
  await store.tx(async (q) => {
    const keyId = await newWalletKey(q, user.personalAccountId, now);
    let walletId: string;
    if (existing) {
      walletId = existing.id;
      // Moved only from the account it was checked on: a racing change of the wallet fails the link instead.
      const moved = await q.run('UPDATE wallets SET account_id = $1, key_id = $2 WHERE id = $3 AND account_id = $4', [
        user.personalAccountId,
        keyId,
        existing.id,
        existing.accountId,
      ]);
      if (moved !== 1) throw new ApiError('CONFLICT', 'The wallet changed while it was being linked: try again');
      await q.run('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now, existing.keyId]);
      await q.run('UPDATE accounts SET disabled_at = $1 WHERE id = $2 AND disabled_at IS NULL', [now, existing.accountId]);
      // The wallet-only user (if it ever signed in to the app) loses the wallet, its only way in; its sessions end.
      const walletUser = await q.get<{ id: string }>('SELECT id FROM users WHERE wallet_id = $1', [existing.id]);
      if (walletUser) {
        await q.run('DELETE FROM sessions WHERE user_id = $1', [walletUser.id]);
        await q.run('UPDATE users SET wallet_id = NULL WHERE id = $1', [walletUser.id]);
      }
    } else {
      walletId = randomUUID();
      const inserted = await q.run(
        'INSERT INTO wallets (id, namespace, address, account_id, key_id, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (namespace, address) DO NOTHING',
        [walletId, wallet.namespace, address, user.personalAccountId, keyId, now],
      );
      if (inserted !== 1) throw new ApiError('CONFLICT', 'The wallet signed in elsewhere while it was being linked: try again');
    }
    const linked = await q.run('UPDATE users SET linked_wallet_id = $1 WHERE id = $2 AND linked_wallet_id IS NULL AND wallet_id IS NULL', [walletId, user.id]);
    if (linked !== 1) throw new ApiError('CONFLICT', 'A wallet was linked to this account meanwhile');
  });
  forgetWalletPrincipals(store);
}

/** Unlinks an email user's wallet: the wallet gets an account and app user of its own, empty; the money stays here. */
export async function unlinkWallet(store: Store, user: User, now = Date.now()): Promise<void> {
  if (user.wallet) throw new ApiError('INVALID_REQUEST', 'You signed in with a wallet: it is how you sign in, and cannot be unlinked');
  const w = user.linkedWallet;
  if (!w) throw new ApiError('NOT_FOUND', 'No wallet is linked to this account');
  await store.tx(async (q) => {
    // A single sign-on newcomer has no password: the wallet may be all that is left to sign in with.
    await keepOneSignInMethod(q, user, 'wallet');
    const row = await q.get<{ key_id: string }>('SELECT key_id FROM wallets WHERE id = $1 AND account_id = $2', [w.id, user.personalAccountId]);
    if (!row) throw new ApiError('CONFLICT', 'The wallet changed meanwhile: reload and try again');
    const accountId = randomUUID();
    await q.run('INSERT INTO accounts (id, name, tier, created_at) VALUES ($1, $2, $3, $4)', [accountId, `wallet ${w.namespace}:${w.address}`, 'default', now]);
    const keyId = await newWalletKey(q, accountId, now);
    await q.run('UPDATE wallets SET account_id = $1, key_id = $2 WHERE id = $3', [accountId, keyId, w.id]);
    await q.run('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [now, row.key_id]);
    await q.run('UPDATE users SET linked_wallet_id = NULL WHERE id = $1', [user.id]);
    // Its own wallet-only user now, so the next wallet sign-in is not a newcomer's (no second starting allowance).
    await q.run(
      `INSERT INTO users (id, email, password_hash, display_name, is_admin, account_id, created_at, wallet_id)
       VALUES ($1, $2, '', $3, FALSE, $4, $5, $6)`,
      [randomUUID(), `${walletUserEmail(w)}:${now}`, shortAddress(w.address), accountId, now, w.id],
    );
  });
  forgetWalletPrincipals(store);
}

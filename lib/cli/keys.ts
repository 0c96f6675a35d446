// The CLI's key commands: create (the secret is printed once) and list (never a secret: the last six characters).
import { accountKeys, KEY_TYPES, type KeyType } from '../auth/keys.ts';
import { existingAccount, withStore } from './store.ts';
import { need, options, UsageError } from './usage.ts';

/** The most keys `key list` prints (newest live keys first). */
const LIST_LIMIT = 500;

export function keyCreate(args: string[]): Promise<void> {
  const o = options(args, ['account', 'type', 'description', 'expires']);
  const type = need(o, 'type').toUpperCase() as KeyType;
  if (!KEY_TYPES.includes(type)) throw new UsageError('--type must be INFERENCE or ADMIN');
  const description = o.description ?? '';
  if (description.length > 64) throw new UsageError('--description is at most 64 characters');
  let expiresAt: number | null = null;
  if (o.expires) {
    expiresAt = Date.parse(o.expires);
    if (!Number.isFinite(expiresAt)) throw new UsageError(`--expires is not a date: ${o.expires}`);
  }
  return withStore(async (store) => {
    const a = await existingAccount(store, need(o, 'account'));
    const { key, secret } = await accountKeys(store, a.id).create({ type, description, expiresAt });
    console.error(`created ${key.type} key ${key.id} for account ${a.id}; the secret is shown only now:`);
    console.log(secret);
  });
}

/** One line per key: id, type, state (active, expired, revoked), …last six, description, created. */
export function keyList(args: string[]): Promise<void> {
  const o = options(args, ['account']);
  return withStore(async (store) => {
    const a = await existingAccount(store, need(o, 'account'));
    const now = Date.now();
    for (const k of await accountKeys(store, a.id).list(LIST_LIMIT)) {
      const state = k.revokedAt !== null ? 'revoked' : k.expiresAt !== null && k.expiresAt <= now ? 'expired' : 'active';
      console.log(`${k.id}\t${k.type}\t${state}\t…${k.last6}\t${k.description}\t${new Date(k.createdAt).toISOString()}`);
    }
  });
}

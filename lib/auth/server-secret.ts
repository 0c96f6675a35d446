// Server secrets: random keys made once per database and shared by every instance on it (table server_secrets,
// migration 17), so a value one instance signs verifies on another without an operator setting anything. The first
// instance to need a secret inserts it; a racing instance's insert is skipped and both read the one row.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store } from '../db/store.ts';

const cache = new WeakMap<Store, Map<string, Promise<Buffer>>>();

/** The named secret (32 random bytes), created on first use. */
export function serverSecret(store: Store, name: string): Promise<Buffer> {
  let byName = cache.get(store);
  if (!byName) cache.set(store, (byName = new Map()));
  let secret = byName.get(name);
  if (!secret) {
    secret = (async () => {
      await store.run('INSERT INTO server_secrets (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [
        name,
        randomBytes(32).toString('base64url'),
        Date.now(),
      ]);
      const row = await store.get<{ value: string }>('SELECT value FROM server_secrets WHERE name = $1', [name]);
      if (!row) throw new Error(`server secret ${name} could not be read back`);
      return Buffer.from(row.value, 'base64url');
    })();
    // A failed read (the database was down) is retried by the next caller instead of being remembered.
    secret.catch(() => byName.delete(name));
    byName.set(name, secret);
  }
  return secret;
}

/** HMAC-SHA256 of `data` under the named secret, base64url. */
export async function sign(store: Store, name: string, data: string): Promise<string> {
  return createHmac('sha256', await serverSecret(store, name))
    .update(data)
    .digest('base64url');
}

/** Whether `mac` is the HMAC of `data` under the named secret (constant-time). */
export async function verify(store: Store, name: string, data: string, mac: string): Promise<boolean> {
  const want = Buffer.from(await sign(store, name, data), 'base64url');
  const got = Buffer.from(mac, 'base64url');
  // Only the canonical spelling: base64url's last character carries unused bits, so two strings decode the same.
  if (got.toString('base64url') !== mac) return false;
  return got.length === want.length && timingSafeEqual(got, want);
}

// Secrets the service keeps in its database (an added upstream's API key, lib/models/operator-catalogue.ts) are sealed
// with AES-256-GCM under the secrets key, so a dump or a backup of the database does not hold them in the clear. The
// row's name is the associated data: a sealed value copied onto another row does not open there.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const PREFIX = 'sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  seal(plain: string, context: string): string;
  /** The plain text; throws when the value was sealed under another key or context, or was altered. */
  open(stored: string, context: string): string;
}

/** Whether a stored value is sealed (values stored before sealing existed are plain text). */
export const isSealed = (stored: string): boolean => stored.startsWith(PREFIX);

export function secretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
  return {
    seal(plain, context) {
      const iv = crypto.randomBytes(IV_BYTES);
      const cipher = crypto.createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    open(stored, context) {
      if (!isSealed(stored)) throw new Error('not a sealed value');
      const raw = Buffer.from(stored.slice(PREFIX.length), 'base64');
      if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('the sealed value is cut short');
      const decipher = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}

/** LAGOON_SECRETS_KEY: 32 random bytes, as 64 hex digits or in base64 (`openssl rand -hex 32`). */
export function parseSecretsKey(raw: string): Buffer {
  const text = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(text) ? Buffer.from(text, 'base64') : undefined;
  if (key?.length !== 32) throw new Error('must be 32 bytes as 64 hex digits or base64 (openssl rand -hex 32)');
  return key;
}

/**
 * The embedded store's key when none is configured: `secrets.key` in the data directory, made (mode 0600) on first
 * use. It sits beside the database, not in it: a copy of lagoon.db alone does not open the secrets.
 */
export function dataDirSecretsKey(dataDir: string): Buffer {
  const file = path.join(dataDir, 'secrets.key');
  const read = () => parseSecretsKey(fs.readFileSync(file, 'utf8'));
  try {
    return read();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`${file}: ${(e as Error).message}`);
  }
  const key = crypto.randomBytes(32);
  try {
    fs.writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    // Another process (the CLI beside the server) made it first: its key is the one.
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return read();
    throw e;
  }
  return key;
}

// Signed receipts. Each billed answer can be fetched as a receipt: what was asked (the request's hash), what was
// answered (the answer's hash), the model, the units and their prices, the amount and currency, the balance after,
// and the ledger entry (the usage row), signed with the server's Ed25519 receipt key. The keys are published as a JWK
// set at /.well-known/lagoon-receipt-keys, every key ever used (a receipt signed before a rotation still verifies),
// so a payer or an agent verifies a receipt offline with only that set (`lagoon receipt verify`).
//
// The keys live in the database (table receipt_keys, like server_secrets): every instance signs with the same one. A
// key signs for LAGOON_RECEIPT_KEY_DAYS; the first instance to need one after that makes the next (its id is the
// period's number, so racing instances make one). Receipts are made when fetched, from the usage row as it is then:
// a refund made since shows in it.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import { microsToString } from './money.ts';
import { log } from '../log.ts';

export interface ReceiptHashes {
  requestId: string;
  accountId: string;
  requestSha256: string;
  responseSha256: string;
}

/**
 * Billed requests' hashes, written in batches (every FLUSH_MS, or MAX_BATCH at once) so a receipt costs the answer's
 * path no write of its own. A receipt fetched on this instance flushes first; a crash loses at most the last
 * moment's hashes (those receipts then say null).
 */
export class ReceiptHashLog {
  private static readonly FLUSH_MS = 200;
  private static readonly MAX_BATCH = 500;
  private readonly store: Store;
  private pending: (ReceiptHashes & { at: number })[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(store: Store) {
    this.store = store;
  }

  add(h: ReceiptHashes): void {
    this.pending.push({ ...h, at: Date.now() });
    if (this.pending.length >= ReceiptHashLog.MAX_BATCH) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), ReceiptHashLog.FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Writes what is pending (once: a replay keeps the first answer's hashes). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length) {
      const params = batch.flatMap((h) => [h.requestId, h.accountId, h.requestSha256, h.responseSha256, h.at]);
      const rows = batch.map((_, i) => `($${i * 5 + 1}, $${i * 5 + 2}, $${i * 5 + 3}, $${i * 5 + 4}, $${i * 5 + 5})`).join(', ');
      this.writing = this.writing
        .then(() =>
          this.store.run(
            `INSERT INTO receipts (request_id, account_id, request_sha256, response_sha256, created_at) VALUES ${rows} ON CONFLICT (request_id) DO NOTHING`,
            params,
          ),
        )
        .then(
          () => undefined,
          (err) => log.error({ err, count: batch.length }, 'could not keep the hashes of billed requests for their receipts'),
        );
    }
    return this.writing;
  }
}

/** A public key as a JWK (RFC 8037), with when it began and stopped signing. */
export interface ReceiptJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  use: 'sig';
  alg: 'EdDSA';
  /** ISO 8601. */
  created_at: string;
  retired_at: string | null;
}

interface KeyRow {
  id: string;
  public_jwk: string;
  private_jwk: string;
  created_at: number | string;
}

const KEY_CACHE_MS = 60_000;
const cache = new WeakMap<Store, { at: number; signer: { kid: string; key: KeyObject }; keys: ReceiptJwk[] }>();

/** The key that signs now (made when the period has none) and every published key, newest first. */
export async function receiptKeys(store: Store, rotateMs: number, now = Date.now()): Promise<{ signer: { kid: string; key: KeyObject }; keys: ReceiptJwk[] }> {
  const hit = cache.get(store);
  const period = Math.floor(now / rotateMs);
  const kid = `rk-${period}`;
  if (hit && now - hit.at < KEY_CACHE_MS && hit.signer.kid === kid) return hit;
  const all = () => store.all<KeyRow>('SELECT id, public_jwk, private_jwk, created_at FROM receipt_keys ORDER BY created_at DESC, id DESC');
  let rows = await all();
  if (!rows.some((r) => r.id === kid)) {
    // The period's first signature: make its key (a racing instance's insert is skipped, and both read the one row).
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    await store.run('INSERT INTO receipt_keys (id, public_jwk, private_jwk, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING', [
      kid,
      JSON.stringify(publicKey.export({ format: 'jwk' })),
      JSON.stringify(privateKey.export({ format: 'jwk' })),
      now,
    ]);
    rows = await all();
  }
  const mine = rows.find((r) => r.id === kid);
  if (!mine) throw new Error(`receipt key ${kid} could not be read back`);
  const keys = rows.map((r, i): ReceiptJwk => {
    const jwk = JSON.parse(r.public_jwk) as { x: string };
    const next = rows[i - 1];
    return {
      kty: 'OKP',
      crv: 'Ed25519',
      x: jwk.x,
      kid: r.id,
      use: 'sig',
      alg: 'EdDSA',
      created_at: new Date(Number(r.created_at)).toISOString(),
      retired_at: next ? new Date(Number(next.created_at)).toISOString() : null,
    };
  });
  const entry = { at: now, signer: { kid, key: createPrivateKey({ key: JSON.parse(mine.private_jwk), format: 'jwk' }) }, keys };
  cache.set(store, entry);
  return entry;
}

/** JSON with its object keys sorted at every depth: what is signed, so any JSON library can rebuild it. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export interface SignedReceipt {
  receipt: Record<string, unknown>;
  signature: { alg: 'EdDSA'; kid: string; value: string };
}

interface UsageReceiptRow {
  request_id: string;
  key_id: string | null;
  model_id: string;
  endpoint: string;
  unit: string;
  quantity: number | string;
  prompt_tokens: number | string;
  completion_tokens: number | string;
  cached_tokens: number | string;
  usd: number | string;
  diem: number | string;
  refunded_usd: number | string | null;
  refunded_diem: number | string | null;
  usd_after: number | string | null;
  diem_after: number | string | null;
  created_at: number | string;
  request_sha256: string | null;
  response_sha256: string | null;
}

export interface ReceiptContext {
  store: Store;
  /** This instance's hashes not yet written: flushed before a receipt is read. */
  hashes?: ReceiptHashLog;
  rotateMs: number;
  /** The server, as the receipt names its issuer. */
  issuer: string;
  /** The model's prices as the catalogue lists them now (the receipt says so), or null for a model no longer listed. */
  pricesOf: (modelId: string) => Record<string, unknown> | null;
}

const money = (micros: number | string | null) => (micros === null ? null : microsToString(Number(micros)));

/**
 * The signed receipt of one of the account's billed requests; 404 when it is not the account's (or, with `keyId`,
 * not made with that key).
 */
export async function signedReceipt(rc: ReceiptContext, accountId: string, requestId: string, opts: { keyId?: string } = {}): Promise<SignedReceipt> {
  await rc.hashes?.flush();
  const row = await rc.store.get<UsageReceiptRow>(
    `SELECT u.request_id, u.key_id, u.model_id, u.endpoint, u.unit, u.quantity, u.prompt_tokens, u.completion_tokens, u.cached_tokens,
            u.usd, u.diem, u.refunded_usd, u.refunded_diem, u.usd_after, u.diem_after, u.created_at, r.request_sha256, r.response_sha256
       FROM usage u LEFT JOIN receipts r ON r.request_id = u.request_id
      WHERE u.account_id = $1 AND u.request_id = $2`,
    [accountId, requestId],
  );
  if (!row || (opts.keyId !== undefined && row.key_id !== opts.keyId)) throw new ApiError('NOT_FOUND', `No receipt for request ${requestId}`);
  const usd = Number(row.usd) + Number(row.refunded_usd ?? 0);
  const diem = Number(row.diem) + Number(row.refunded_diem ?? 0);
  const receipt = {
    version: 1,
    issuer: rc.issuer,
    request_id: row.request_id,
    account_id: accountId,
    ledger_entry: `usage:${row.request_id}`,
    model: row.model_id,
    endpoint: row.endpoint,
    unit: row.unit,
    quantity: Number(row.quantity),
    tokens: { prompt: Number(row.prompt_tokens), completion: Number(row.completion_tokens), cached: Number(row.cached_tokens) },
    unit_prices: rc.pricesOf(row.model_id),
    amount: { usd: money(usd), diem: money(diem) },
    currency: usd > 0 && diem > 0 ? 'USD+DIEM' : diem > 0 ? 'DIEM' : 'USD',
    refunded: row.refunded_usd === null ? null : { usd: money(row.refunded_usd), diem: money(row.refunded_diem) },
    balance_after: row.usd_after === null ? null : { usd: money(row.usd_after), diem: money(row.diem_after) },
    request_sha256: row.request_sha256,
    response_sha256: row.response_sha256,
    charged_at: new Date(Number(row.created_at)).toISOString(),
    issued_at: new Date().toISOString(),
  };
  const { signer } = await receiptKeys(rc.store, rc.rotateMs);
  const value = sign(null, Buffer.from(canonicalJson(receipt)), signer.key).toString('base64url');
  return { receipt, signature: { alg: 'EdDSA', kid: signer.kid, value } };
}

/** Checks a receipt against a published key set, offline: why it fails, or null when it verifies. */
export function receiptProblem(doc: unknown, keys: { keys?: unknown }): string | null {
  const d = doc as Partial<SignedReceipt> | null;
  if (!d || typeof d !== 'object' || !d.receipt || typeof d.receipt !== 'object' || !d.signature) return 'not a receipt: it needs receipt and signature';
  const { kid, value, alg } = d.signature;
  if (alg !== 'EdDSA' || typeof kid !== 'string' || typeof value !== 'string') return 'the signature is not an EdDSA signature with a kid';
  const list = Array.isArray(keys.keys) ? (keys.keys as Partial<ReceiptJwk>[]) : [];
  const jwk = list.find((k) => k.kid === kid);
  if (jwk?.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') return `no published Ed25519 key ${kid}`;
  let ok = false;
  try {
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
    ok = verify(null, Buffer.from(canonicalJson(d.receipt)), key, Buffer.from(value, 'base64url'));
  } catch {
    return 'the key or signature is malformed';
  }
  return ok ? null : 'the signature does not match: the receipt was changed, or was not signed with this key';
}

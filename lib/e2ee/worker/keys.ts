// The worker's key: made at start, replaced every rotateMs, held in memory only. A request sealed to a key that is no
// longer current is answered `e2ee_attestation_stale` (the client attests again). Each key keeps a bounded set of the
// request envelopes it opened, so a gateway replaying a captured request is refused.
import { createHash } from 'node:crypto';
import { type KeyPair, newKeyPair } from '../envelope.ts';
import { addressOf } from '../signing.ts';

export interface WorkerKey extends KeyPair {
  /** 130 hex characters: what clients put in the model-pub-key header. */
  publicHex: string;
  address: string;
  createdAt: number;
  /** Hashes of the envelope sets seen with this key (insertion order, oldest dropped first). */
  seen: Set<string>;
}

function makeKey(now: number): WorkerKey {
  const pair = newKeyPair();
  return { ...pair, publicHex: Buffer.from(pair.publicKey).toString('hex'), address: addressOf(pair.publicKey), createdAt: now, seen: new Set() };
}

export class WorkerKeys {
  private key: WorkerKey;
  private readonly rotateMs: number;
  private readonly maxSeen: number;
  private readonly now: () => number;

  constructor(opts: { rotateMs: number; maxSeen?: number; now?: () => number }) {
    this.rotateMs = opts.rotateMs;
    this.maxSeen = opts.maxSeen ?? 100_000;
    this.now = opts.now ?? Date.now;
    this.key = makeKey(this.now());
  }

  /** The current key (a new one once the old is rotateMs old; the old one's secret is wiped). */
  current(): WorkerKey {
    if (this.rotateMs > 0 && this.now() - this.key.createdAt >= this.rotateMs) this.rotate();
    return this.key;
  }

  rotate(): void {
    this.key.secretKey.fill(0);
    this.key = makeKey(this.now());
  }

  /**
   * Records the request's envelopes under the current key; false when this exact set was seen before (a replay).
   * The set, not each envelope: a client may resend an unchanged history with a new question.
   */
  admit(key: WorkerKey, envelopes: string[]): boolean {
    const h = createHash('sha256');
    for (const e of envelopes) h.update(e).update('\n');
    const digest = h.digest('hex');
    if (key.seen.has(digest)) return false;
    key.seen.add(digest);
    if (key.seen.size > this.maxSeen) key.seen.delete(key.seen.values().next().value as string);
    return true;
  }
}

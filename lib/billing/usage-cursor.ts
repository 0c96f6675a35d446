// The usage history's continuation cursor: opaque to clients, tamper-checked by an HMAC under a server secret
// (lib/auth/server-secret.ts), bound to the account it was issued to and short-lived. It carries the filters of the
// first request as well as the position, so a continuation request sends the cursor alone and cannot change them.
import { ApiError } from '../api/errors.ts';
import { sign, verify } from '../auth/server-secret.ts';
import type { Store } from '../db/store.ts';
import { ENTRY_CURRENCIES, type EntryCurrency, type EntryFilter, type EntryPosition } from './usage-entries.ts';

const SECRET = 'usage-cursor';
const VERSION = 1;
/** A cursor older than this asks the client to start over (its filters and position may be long stale). */
export const CURSOR_TTL_MS = 24 * 3_600_000;
/** The base64url HMAC-SHA256 at the end of every cursor. */
const MAC_LENGTH = 43;

export interface CursorState extends EntryFilter {
  pageSize: number;
  after: EntryPosition;
}

interface Payload {
  v: number;
  a: string;
  e: number;
  f?: number;
  t?: number;
  c?: EntryCurrency;
  s: number;
  p: [number, string, 'USD' | 'DIEM'];
}

const restart = () => new ApiError('INVALID_REQUEST', 'The cursor is invalid or expired; restart from the first page', { param: 'cursor' });

export async function encodeCursor(store: Store, accountId: string, state: CursorState, now = Date.now()): Promise<string> {
  const payload: Payload = {
    v: VERSION,
    a: accountId,
    e: now + CURSOR_TTL_MS,
    f: state.from,
    t: state.to,
    c: state.currency,
    s: state.pageSize,
    p: [state.after.createdAt, state.after.requestId, state.after.currency],
  };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return body + (await sign(store, SECRET, body));
}

/** The state a cursor carries; 400 when it was altered, issued to another account, or has expired. */
export async function decodeCursor(store: Store, accountId: string, cursor: string, now = Date.now()): Promise<CursorState> {
  if (cursor.length <= MAC_LENGTH) throw restart();
  const body = cursor.slice(0, -MAC_LENGTH);
  if (!(await verify(store, SECRET, body, cursor.slice(-MAC_LENGTH)))) throw restart();
  let p: Payload;
  try {
    p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw restart();
  }
  // A genuine cursor of another account (or version) is refused like a forged one: it says nothing to this caller.
  if (p.v !== VERSION || p.a !== accountId || !(p.e > now)) throw restart();
  if (!Array.isArray(p.p) || (p.c !== undefined && !ENTRY_CURRENCIES.includes(p.c))) throw restart();
  return { from: p.f, to: p.t, currency: p.c, pageSize: p.s, after: { createdAt: p.p[0], requestId: p.p[1], currency: p.p[2] } };
}

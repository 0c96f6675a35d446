// The credit ledger. A request reserves its worst-case cost before it reaches an engine, settles to the actual cost
// exactly once when it ends, or releases the hold when it fails. Every step is one transaction that locks the
// account row, so concurrent requests (in one process or many sharing a database) cannot spend the same credit
// twice, and no balance goes below zero. DIEM (a daily allowance) is spent before USD. Every movement that is not a
// charge (a usage row) is also an entry of the append-only ledger, in the same transaction (entries.ts).
import { randomUUID } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import type { Queryable, Store } from '../db/store.ts';
import { type HeldAmount, type HoldBook, tableHolds } from './holds.ts';
import { addEntry } from './entries.ts';
import { addKeySpend, type KeyLimit, keySpent, limitMessage } from './key-limits.ts';
import { type MemberCap, memberCapExceeded, memberCapOf, memberHeldFromRows, memberSettled, periodStart } from './member-cap.ts';
import { type Amount, diemEpoch, microsToString } from './money.ts';
import type { Unit } from './pricing.ts';
import { recordRpcUsage, type RpcUsage } from './rpc-usage.ts';

export interface Hold {
  requestId: string;
  accountId: string;
  keyId: string | null;
  /** Reserved micro-units per currency. */
  usd: number;
  diem: number;
}

export interface Balances {
  usd: number;
  usdHeld: number;
  diem: number;
  diemHeld: number;
  diemDaily: number;
}

interface BalanceRow {
  usd: number;
  usd_held: number;
  diem: number;
  diem_held: number;
  diem_daily: number;
}

const toBalances = (r: BalanceRow): Balances => ({ usd: r.usd, usdHeld: r.usd_held, diem: r.diem, diemHeld: r.diem_held, diemDaily: r.diem_daily });

// The daily allowance is refilled lazily, by whichever statement first touches the account on a new UTC day. What
// the day before left expires: the entry is the difference (`left`: the row's DIEM before the refill).
async function refreshEpoch(q: Queryable, accountId: string, now: number, left: number, daily: number) {
  const epoch = diemEpoch(now);
  const changed = await q.run('UPDATE accounts SET diem = diem_daily, diem_epoch = $2 WHERE id = $1 AND diem_epoch <> $2', [accountId, epoch]);
  if (changed === 1 && daily !== left) {
    await addEntry(q, { accountId, kind: 'allowance', diem: daily - left, note: `daily DIEM allowance for ${epoch}`, at: now });
  }
}

/**
 * The locked row, refilled first on a new UTC day. Read before the refill (which writes only once a day), so a
 * settlement costs one read here instead of an UPDATE and a read.
 */
async function lockedBalances(store: Store, q: Queryable, accountId: string, now: number): Promise<Balances> {
  return (await lockedRow(store, q, accountId, now)).balances;
}

/** lockedBalances with the carried fractions, which a settlement reads in the same statement. */
async function lockedRow(store: Store, q: Queryable, accountId: string, now: number): Promise<{ balances: Balances; frac: Amount }> {
  const { balances, stale, rawDiem, frac } = await readRow(store, q, accountId, now, true);
  if (stale) await refreshEpoch(q, accountId, now, rawDiem, balances.diemDaily);
  return { balances, frac };
}

interface BalanceReadRow extends BalanceRow {
  diem_epoch: string;
  usd_frac: number | string;
  diem_frac: number | string;
}

/** Balances with today's DIEM refill applied in the result only (reservations write nothing; settlements refill). */
async function readBalances(store: Store, q: Queryable, accountId: string, now: number, lock: boolean): Promise<Balances> {
  return (await readRow(store, q, accountId, now, lock)).balances;
}

/** The account's balances as of `now`, and whether the row still holds an earlier day's DIEM (`stale`). */
async function readRow(
  store: Store,
  q: Queryable,
  accountId: string,
  now: number,
  lock: boolean,
): Promise<{ balances: Balances; stale: boolean; rawDiem: number; frac: Amount }> {
  // The carried fractions come along (two more columns of the row already read), so a settlement needs no second read.
  const row = await q.get<BalanceReadRow>(
    `SELECT usd, usd_held, diem, diem_held, diem_daily, diem_epoch, usd_frac, diem_frac FROM accounts WHERE id = $1${lock ? store.forUpdate : ''}`,
    [accountId],
  );
  if (!row) throw new ApiError('AUTHENTICATION_FAILED');
  const balances = toBalances(row);
  const stale = row.diem_epoch !== diemEpoch(now);
  const rawDiem = Number(balances.diem);
  if (stale) balances.diem = balances.diemDaily;
  return { balances, stale, rawDiem, frac: { usd: Number(row.usd_frac ?? 0), diem: Number(row.diem_frac ?? 0) } };
}

/** Balances as of now (after today's DIEM refill). */
export async function getBalances(store: Store, accountId: string, now = Date.now()): Promise<Balances> {
  return store.tx((q) => lockedBalances(store, q, accountId, now));
}

/**
 * The split of an amount between currencies: DIEM covers what it can, USD the rest. `cost` is the same charge
 * priced in each currency; the USD share is the uncovered fraction of the USD price.
 */
export function splitCharge(cost: Amount, diemAvailable: number): Amount {
  if (cost.diem <= 0) return { diem: 0, usd: cost.usd };
  const diem = Math.max(0, Math.min(cost.diem, diemAvailable));
  const uncovered = (cost.diem - diem) / cost.diem;
  return { diem, usd: Math.ceil(cost.usd * uncovered) };
}

export interface ReserveInput {
  requestId?: string;
  accountId: string;
  keyId: string | null;
  /** Worst-case cost of the request, priced in each currency (micro-units). */
  estimate: Amount;
  /** The key's consumption limits, when it has any. */
  keyLimit?: KeyLimit;
  /** The team member the key acts for (`api_keys.member_id`): their cap is enforced with the hold (member-cap.ts). */
  memberId?: string | null;
  now?: number;
}

interface MemberRoom {
  cap: MemberCap;
  settled: number;
  /** Their hold rows' total; undefined when the hold book keeps it (memory). */
  heldRows: number | undefined;
}

/** The member's cap and what counts against it, read in the reservation; null: no cap. 401 once they left the team. */
async function memberRoom(q: Queryable, accountId: string, memberId: string, now: number, holds: HoldBook): Promise<MemberRoom | null> {
  const cap = await memberCapOf(q, accountId, memberId);
  if (cap === undefined) throw new ApiError('AUTHENTICATION_FAILED_INACTIVE_KEY', 'You are no longer a member of this team');
  if (cap === null) return null;
  const [settled, heldRows] = await Promise.all([
    memberSettled(q, accountId, memberId, periodStart(cap.period, now)),
    holds.memberTotal(accountId, memberId) === undefined ? memberHeldFromRows(q, accountId, memberId) : undefined,
  ]);
  return { cap, settled, heldRows };
}

const CAP_NONE = Number.MAX_SAFE_INTEGER;

/**
 * Reserves the estimate, or throws 402 INSUFFICIENT_BALANCE (before writing anything). With table holds it runs in
 * a transaction; with memory holds it is one read, and the check and the hold happen with no await between them.
 */
export async function reserveIn(
  store: Store,
  q: Queryable,
  input: ReserveInput,
  holds: HoldBook = tableHolds(store),
): Promise<{ hold: Hold; before: Balances }> {
  const now = input.now ?? Date.now();
  const requestId = input.requestId ?? randomUUID();
  const limit = input.keyLimit;
  const memberId = input.memberId ?? null;
  // Every read first; from here to holds.add nothing awaits, so in-memory holds cannot be raced. With memory holds the
  // reads are outside a transaction: when a settlement dropped its hold while they ran, they are read again.
  let before: Balances;
  let spent: HeldAmount | undefined;
  let keyHeldRows: HeldAmount | undefined;
  let member: MemberRoom | null;
  for (;;) {
    const version = holds.version;
    before = await readBalances(store, q, input.accountId, now, !holds.inMemory);
    spent = limit ? await keySpent(q, limit, now) : undefined;
    keyHeldRows = limit && !holds.keyTotals(limit.keyId) ? await keyHeldFromRows(q, limit.keyId) : undefined;
    member = memberId ? await memberRoom(q, input.accountId, memberId, now, holds) : null;
    if (holds.version === version) break;
  }
  const held = holds.totals(input.accountId);
  if (held) [before.usdHeld, before.diemHeld] = [held.usd, held.diem];
  // What the key may still spend this period, per currency.
  const keyHeld = limit ? (holds.keyTotals(limit.keyId) ?? keyHeldRows!) : undefined;
  const keyRoom = (cap: number | null | undefined, used: number) => (cap === null || cap === undefined ? CAP_NONE : Math.max(0, cap - used));
  const keyUsd = limit ? keyRoom(limit.usd, spent!.usd + keyHeld!.usd) : CAP_NONE;
  const keyDiem = limit ? keyRoom(limit.diem, spent!.diem + keyHeld!.diem) : CAP_NONE;
  // DIEM is spent first, as far as the account's allowance and the key's DIEM cap allow; USD covers the rest.
  const take = splitCharge(input.estimate, Math.min(before.diem - before.diemHeld, keyDiem));
  if (take.usd > keyUsd) throw new ApiError('API_KEY_USD_SPEND_LIMIT_EXCEEDED', limitMessage('USD', limit!));
  if (member) {
    // The member's cap, USD and DIEM together: settled this period + their holds in flight + this hold.
    const memberHeld = member.heldRows ?? holds.memberTotal(input.accountId, memberId!)!;
    if (member.settled + memberHeld + take.usd + take.diem > member.cap.cap) throw memberCapExceeded(member.cap, member.settled, memberHeld);
  }
  if (take.usd > before.usd - before.usdHeld) {
    if (keyDiem < before.diem - before.diemHeld) throw new ApiError('API_KEY_DIEM_SPEND_LIMIT_EXCEEDED', limitMessage('DIEM', limit!));
    throw shortOfCredit(input.estimate, before, keyDiem);
  }
  await holds.add(q, { requestId, accountId: input.accountId, keyId: input.keyId, memberId, usd: take.usd, diem: take.diem, createdAt: now });
  return { hold: { requestId, accountId: input.accountId, keyId: input.keyId, usd: take.usd, diem: take.diem }, before };
}

/** How long a client should wait before retrying a request refused while credit was held (most requests end within it). */
export const CREDIT_HELD_RETRY_SECONDS = 5;

/**
 * Why a request does not fit: its credit is held by requests in flight (transient: 402 CREDIT_HELD with Retry-After),
 * or the balance is short of it even with nothing held (402 INSUFFICIENT_BALANCE: waiting does not help).
 */
export function shortOfCredit(estimate: Amount, b: Balances, keyDiem = CAP_NONE): ApiError {
  const unheld = splitCharge(estimate, Math.min(b.diem, keyDiem));
  if ((b.usdHeld > 0 || b.diemHeld > 0) && unheld.usd <= b.usd) {
    return new ApiError('CREDIT_HELD', undefined, undefined, { 'retry-after': String(CREDIT_HELD_RETRY_SECONDS) });
  }
  return new ApiError('INSUFFICIENT_BALANCE');
}

export const reserve = (store: Store, input: ReserveInput) => store.tx((q) => reserveIn(store, q, input));

async function keyHeldFromRows(q: Queryable, keyId: string): Promise<HeldAmount> {
  const r = await q.get<{ usd: number | null; diem: number | null }>('SELECT SUM(usd) AS usd, SUM(diem) AS diem FROM holds WHERE key_id = $1', [keyId]);
  return { usd: Number(r?.usd ?? 0), diem: Number(r?.diem ?? 0) };
}

export interface UsageRecord {
  modelId: string;
  endpoint: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  /** Web searches and successfully scraped URLs billed with the request. */
  searches?: number;
  scrapedUrls?: number;
  /** The unit the request was billed in and how many (default: tokens, prompt and completion together). */
  unit?: Unit;
  quantity?: number;
  /** A JSON-RPC proxy call's network and methods: its rpc_calls rows, written with the usage row (rpc-usage.ts). */
  rpc?: RpcUsage;
}

/**
 * What a finished request is charged, per currency, known without reading the account: DIEM up to what the hold
 * took from DIEM, USD for the uncovered share. The hold was taken DIEM first, so this is the DIEM-first split.
 */
export function chargeFor(cost: Amount, hold: Hold): Amount {
  return splitCharge(cost, hold.diem);
}

/**
 * Replaces the hold by the charge and records the usage row, once: the usage row's key (the request id) decides, so a
 * second settle of the same request charges nothing. USD beyond the spendable balance (only possible when the actual
 * cost exceeded the estimate) is not charged, so no balance goes below zero. Returns what was charged.
 *
 * The account row is locked before the hold, as a reservation and the orphan sweep lock them, so two transactions
 * never wait on each other in opposite orders. A settle that finds no hold still bills: its hold was released by the
 * orphan sweep (another instance took this one for dead, instance-lease.ts) while the work went on, and the client
 * is about to be told the cost; the release gave the held amount back, the charge takes the cost, each once.
 */
export async function settleIn(
  store: Store,
  q: Queryable,
  hold: Hold,
  cost: Amount,
  usage: UsageRecord,
  now = Date.now(),
  holds: HoldBook = tableHolds(store),
  /** The usage row's time when it is not `now` (a settlement replayed from the journal, settlement-journal.ts). */
  createdAt = now,
): Promise<Amount> {
  const { balances: b, frac } = await lockedRow(store, q, hold.accountId, now);
  const held = await holds.take(q, hold.requestId);
  // What this request may spend: the balance not held by other requests (its own hold is claimed already).
  const others =
    holds.totals(hold.accountId, true) ?? (held ? { usd: b.usdHeld - held.usd, diem: b.diemHeld - held.diem } : { usd: b.usdHeld, diem: b.diemHeld });
  const diemFree = b.diem - others.diem;
  const usdFree = b.usd - others.usd;
  // A cost in whole micro-units splits as it always has; one with a fraction is split exactly, and the fraction of
  // each currency that is not charged is carried on the account (usd_frac, diem_frac) into its next settlement.
  const fractional = !Number.isInteger(cost.usd) || !Number.isInteger(cost.diem);
  const carry = fractional ? carried(frac, splitExact(cost, hold.diem)) : undefined;
  const split = carry?.whole ?? chargeFor(cost, hold);
  const charged = { diem: Math.max(0, Math.min(split.diem, diemFree)), usd: Math.max(0, Math.min(split.usd, usdFree)) };
  const recorded = await q.run(
    `INSERT INTO usage (request_id, account_id, key_id, model_id, endpoint, prompt_tokens, completion_tokens, cached_tokens, searches, scraped_urls, unit, quantity, usd, diem, created_at, usd_after, diem_after)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) ON CONFLICT (request_id) DO NOTHING`,
    [
      hold.requestId,
      hold.accountId,
      hold.keyId,
      usage.modelId,
      usage.endpoint,
      usage.promptTokens,
      usage.completionTokens,
      usage.cachedTokens,
      usage.searches ?? 0,
      usage.scrapedUrls ?? 0,
      usage.unit ?? 'token',
      usage.quantity ?? usage.promptTokens + usage.completionTokens,
      charged.usd,
      charged.diem,
      createdAt,
      // The balance right after this charge (the row is locked: no other settlement moves it in between).
      b.usd - charged.usd,
      b.diem - charged.diem,
    ],
  );
  // Settled before: the row is there, nothing moves again.
  if (recorded === 0) return { usd: 0, diem: 0 };
  // The detail of a JSON-RPC call commits with its bill: one transaction, no commit of its own on the answer's path.
  if (usage.rpc)
    await recordRpcUsage(q, { requestId: hold.requestId, accountId: hold.accountId, network: usage.rpc.network, methods: usage.rpc.methods, at: createdAt });
  // One statement per settlement moves the balance and, for a fractional cost, the carried fractions.
  if (carry) {
    await q.run('UPDATE accounts SET usd = usd - $2, diem = diem - $3, usd_frac = $4, diem_frac = $5 WHERE id = $1', [
      hold.accountId,
      charged.usd,
      charged.diem,
      carry.frac.usd,
      carry.frac.diem,
    ]);
  } else {
    await q.run('UPDATE accounts SET usd = usd - $2, diem = diem - $3 WHERE id = $1', [hold.accountId, charged.usd, charged.diem]);
  }
  if (hold.keyId) await addKeySpend(q, hold.keyId, charged, now);
  return charged;
}

/** Millionths of a micro-unit: the resolution of a carried remainder. */
const FRAC_SCALE = 1_000_000;

/** splitCharge without rounding: DIEM covers what the hold's DIEM part allows, USD the uncovered fraction. */
function splitExact(cost: Amount, diemAvailable: number): Amount {
  if (cost.diem <= 0) return { diem: 0, usd: cost.usd };
  const diem = Math.max(0, Math.min(cost.diem, diemAvailable));
  return { diem, usd: (cost.usd * (cost.diem - diem)) / cost.diem };
}

/** The whole micro-units of an exact charge once the account's carried fractions are added, and the fractions left. */
function carried(frac: Amount, exact: Amount): { whole: Amount; frac: Amount } {
  const one = (amount: number, frac: number): [number, number] => {
    const total = amount + frac / FRAC_SCALE;
    // A hair under a whole unit from float error counts as the unit.
    const whole = Math.floor(total + 1e-9);
    return [whole, Math.min(FRAC_SCALE - 1, Math.max(0, Math.round((total - whole) * FRAC_SCALE)))];
  };
  const [usd, usdFrac] = one(exact.usd, frac.usd);
  const [diem, diemFrac] = one(exact.diem, frac.diem);
  return { whole: { usd, diem }, frac: { usd: usdFrac, diem: diemFrac } };
}

export const settle = (store: Store, hold: Hold, cost: Amount, usage: UsageRecord, now = Date.now()) =>
  store.tx((q) => settleIn(store, q, hold, cost, usage, now));

/** Drops a hold without charging (the request failed before producing anything). */
export async function releaseIn(store: Store, q: Queryable, hold: Hold, holds: HoldBook = tableHolds(store)): Promise<void> {
  // The account row first, in the order every ledger step locks (see settleIn).
  if (!holds.inMemory) await q.get(`SELECT id FROM accounts WHERE id = $1${store.forUpdate}`, [hold.accountId]);
  const held = await holds.take(q, hold.requestId);
  if (held) await addEntry(q, { accountId: hold.accountId, kind: 'release', heldUsd: held.usd, heldDiem: held.diem, ref: hold.requestId });
}

/** Zeroes every held amount: only for a store no other server is using (the embedded SQLite file at start). */
export async function clearAllHolds(store: Store): Promise<void> {
  await store.tx(async (q) => {
    await q.run('UPDATE accounts SET usd_held = 0, diem_held = 0 WHERE usd_held <> 0 OR diem_held <> 0');
    await q.run('DELETE FROM holds');
  });
}

export const release = (store: Store, hold: Hold) => store.tx((q) => releaseIn(store, q, hold));

export async function grantUsd(store: Store, accountId: string, micros: number, note = ''): Promise<Balances> {
  if (!Number.isSafeInteger(micros) || micros <= 0) throw new RangeError('grant must be a positive amount');
  return store.tx(async (q) => {
    const changed = await q.run('UPDATE accounts SET usd = usd + $2 WHERE id = $1', [accountId, micros]);
    if (changed !== 1) throw new RangeError(`no account ${accountId}`);
    const id = randomUUID();
    const at = Date.now();
    await q.run('INSERT INTO credit_grants (id, account_id, usd, note, created_at) VALUES ($1, $2, $3, $4, $5)', [id, accountId, micros, note, at]);
    await addEntry(q, { accountId, kind: 'grant', usd: micros, ref: id, note, at });
    return lockedBalances(store, q, accountId, Date.now());
  });
}

/**
 * An operator's correction: USD added or taken away (never below zero), with the reason, as a new entry. A mistaken
 * grant is corrected this way, never by editing it.
 */
export async function correctUsd(store: Store, accountId: string, micros: number, reason: string): Promise<Balances> {
  if (!Number.isSafeInteger(micros) || micros === 0) throw new RangeError('a correction must be a non-zero amount');
  if (!reason.trim()) throw new RangeError('a correction needs its reason');
  return store.tx(async (q) => {
    const now = Date.now();
    const b = await lockedBalances(store, q, accountId, now);
    if (b.usd + micros < 0) throw new RangeError(`the account has ${b.usd} micro-USD; a correction cannot take it below zero`);
    await q.run('UPDATE accounts SET usd = usd + $2 WHERE id = $1', [accountId, micros]);
    await addEntry(q, { accountId, kind: 'correction', usd: micros, note: reason.trim(), at: now });
    return { ...b, usd: b.usd + micros };
  });
}

/** Sets the daily DIEM allowance; today's remaining allowance moves by the same difference. */
export async function setDiemDaily(store: Store, accountId: string, micros: number, now = Date.now()): Promise<Balances> {
  if (!Number.isSafeInteger(micros) || micros < 0) throw new RangeError('daily allowance must be zero or more');
  return store.tx(async (q) => {
    const b = await lockedBalances(store, q, accountId, now);
    const today = Math.max(0, b.diem + (micros - b.diemDaily));
    await q.run('UPDATE accounts SET diem_daily = $2, diem = $3 WHERE id = $1', [accountId, micros, today]);
    if (today !== b.diem)
      await addEntry(q, { accountId, kind: 'allowance', diem: today - b.diem, note: `daily DIEM allowance set to ${microsToString(micros)}`, at: now });
    return { ...b, diemDaily: micros, diem: today };
  });
}

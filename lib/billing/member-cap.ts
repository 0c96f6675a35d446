// A team member's spend cap (set by the team's owner or admins, lib/teams), on the ledger's side. The reservation
// (ledger.ts#reserveIn) is its authority: in the hold's own transaction, under the account row's lock (PostgreSQL)
// or with no await between the check and the hold (the embedded store's holds in memory), the member's settled spend
// this period, plus what their requests in flight hold, plus this hold must fit the cap. So concurrent requests, on
// one instance or several sharing a database, cannot overshoot it. lib/teams/admission.ts refuses early, from
// settled spend only, before any budget is taken.
//
// One cap counts both currencies: DIEM at par (1 DIEM is 1 USD of inference, the allowance's definition), because
// the cap bounds what a member may spend of the team's money, and DIEM is the team's too (its daily allowance, shared
// by every member, is spent before USD). A cap in USD alone would let one member use up the team's whole allowance.
import { ApiError } from '../api/errors.ts';
import type { Queryable } from '../db/store.ts';
import type { LimitPeriod } from './key-limits.ts';
import { microsToString } from './money.ts';

export interface MemberCap {
  /** Micro-units per period, USD and DIEM together (DIEM at par). */
  cap: number;
  period: LimitPeriod;
}

/** When the cap's current period began (UTC): a day, a week from Monday, a calendar month, or ever. */
export function periodStart(period: LimitPeriod, now: number): number {
  const d = new Date(now);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (period === 'EPOCH') return day;
  if (period === 'WEEK') return day - ((d.getUTCDay() + 6) % 7) * 86_400_000;
  if (period === 'MONTH') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  return 0;
}

/**
 * The member's cap, read where it is kept (team_members, lib/teams/members.ts): null when they have none, undefined
 * when they are no longer a member of the account.
 */
export async function memberCapOf(q: Queryable, accountId: string, memberId: string): Promise<MemberCap | null | undefined> {
  const row = await q.get<{ cap_usd: number | string | null; cap_period: string }>(
    'SELECT cap_usd, cap_period FROM team_members WHERE account_id = $1 AND user_id = $2',
    [accountId, memberId],
  );
  if (!row) return undefined;
  return row.cap_usd === null ? null : { cap: Number(row.cap_usd), period: row.cap_period as LimitPeriod };
}

// The member's keys of the account, so the usage read walks the usage_key_time index of their rows only.
const MEMBER_KEYS = 'SELECT k.id FROM api_keys k WHERE k.account_id = $1 AND k.member_id = $2';

/** What the member's keys of the team were charged since `from` (micro-units, USD plus DIEM; refunds left out). */
export async function memberSettled(q: Queryable, accountId: string, memberId: string, from: number): Promise<number> {
  const r = await q.get<{ spent: number | string | null }>(
    `SELECT SUM(u.usd + u.diem) AS spent FROM usage u WHERE u.key_id IN (${MEMBER_KEYS}) AND u.created_at >= $3`,
    [accountId, memberId, from],
  );
  return Number(r?.spent ?? 0);
}

/** What the member's requests in flight hold, from the hold rows (table holds: every instance's). */
export async function memberHeldFromRows(q: Queryable, accountId: string, memberId: string): Promise<number> {
  const r = await q.get<{ held: number | string | null }>(`SELECT SUM(h.usd + h.diem) AS held FROM holds h WHERE h.key_id IN (${MEMBER_KEYS})`, [
    accountId,
    memberId,
  ]);
  return Number(r?.held ?? 0);
}

const PERIOD_WORDS: Record<LimitPeriod, string> = { EPOCH: 'per day', WEEK: 'per week', MONTH: 'per month', LIFETIME: 'in all' };

/** 402 TEAM_MEMBER_SPEND_LIMIT_EXCEEDED naming the cap, what was spent and what requests in flight hold. */
export function memberCapExceeded(cap: MemberCap, spent: number, held: number): ApiError {
  const inFlight = held > 0 ? `, ${microsToString(held)} USD held by requests in flight` : '';
  return new ApiError(
    'TEAM_MEMBER_SPEND_LIMIT_EXCEEDED',
    `You have reached your team spend cap of ${microsToString(cap.cap)} USD ${PERIOD_WORDS[cap.period]} (spent ${microsToString(spent)} USD${inFlight}; DIEM counts at par)`,
    { capUsd: microsToString(cap.cap), spentUsd: microsToString(spent), heldUsd: microsToString(held), period: cap.period },
  );
}

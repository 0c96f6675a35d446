// When an alert fires: pure rules over what the store reads. Every subject (an account balance in one currency, a
// key's budget in one currency) has a level: a balance is 1 below its threshold and 0 at or above it; a budget is
// the highest of 50, 80 and 100 % of the key's consumption limit its spend in the current period has reached. An
// alert fires when the level rises above the one last alerted in the same period, once per crossing: not on every
// request after it. It re-arms when the level falls (the balance is topped up above the threshold, the limit raised)
// or when the budget's period resets (a new day, week or month starts the level again from 0).
import { microsToString } from '../billing/money.ts';

export const BUDGET_STEPS = [50, 80, 100] as const;

export type Currency = 'USD' | 'DIEM';

/** A subject's level now, in its period ('' for balances, which have none). */
export interface Reading {
  subject: string;
  level: number;
  period: string;
  /** The event to send when this reading is a crossing. */
  event: AlertEvent;
}

export interface Stored {
  level: number;
  period: string;
}

export type AlertEvent =
  | { type: 'balance.low'; data: { currency: Currency; balance: string; threshold: string } }
  | {
      type: 'budget.crossed';
      data: {
        keyId: string;
        keyName: string;
        currency: Currency;
        percent: number;
        /** 80 % and above: the key nears its cap; 100 %: requests are refused until the period resets. */
        nearingCap: boolean;
        spent: string;
        limit: string;
        limitPeriod: string;
        period: string;
      };
    }
  | { type: 'alert.test'; data: { message: string } };

/** What happens to a subject: whether it fires, and the state to store (undefined: unchanged). */
export function step(prev: Stored | undefined, now: Stored): { fire: boolean; next: Stored | undefined } {
  const prevLevel = prev && prev.period === now.period ? prev.level : 0;
  const next = { level: now.level, period: now.period };
  if (now.level > prevLevel) return { fire: true, next };
  if (!prev || prev.level !== now.level || prev.period !== now.period) return { fire: false, next };
  return { fire: false, next: undefined };
}

export function balanceReading(currency: Currency, balance: number, threshold: number): Reading {
  return {
    subject: `balance:${currency}`,
    level: balance < threshold ? 1 : 0,
    period: '',
    event: { type: 'balance.low', data: { currency, balance: microsToString(balance), threshold: microsToString(threshold) } },
  };
}

/** The highest step reached by `spent` of `limit` (0 when none, or when the limit is 0 or less). */
export function budgetLevel(spent: number, limit: number): number {
  if (limit <= 0) return 0;
  let level = 0;
  for (const s of BUDGET_STEPS) if (spent * 100 >= limit * s) level = s;
  return level;
}

export function budgetReading(
  key: { id: string; name: string; limitPeriod: string },
  currency: Currency,
  spent: number,
  limit: number,
  period: string,
): Reading {
  const level = budgetLevel(spent, limit);
  return {
    subject: `budget:${key.id}:${currency}`,
    level,
    period,
    event: {
      type: 'budget.crossed',
      data: {
        keyId: key.id,
        keyName: key.name,
        currency,
        percent: level,
        nearingCap: level >= 80,
        spent: microsToString(spent),
        limit: microsToString(limit),
        limitPeriod: key.limitPeriod,
        period,
      },
    },
  };
}

/** The one-line summary used as a mail subject and in the delivery log. */
export function summary(e: AlertEvent): string {
  if (e.type === 'balance.low') return `Your ${e.data.currency} balance (${e.data.balance}) is below ${e.data.threshold}`;
  if (e.type === 'budget.crossed') {
    const what = e.data.percent >= 100 ? 'has reached its cap' : e.data.nearingCap ? 'is nearing its cap' : 'has used half its budget';
    return `API key "${e.data.keyName}" ${what}: ${e.data.percent} % of ${e.data.limit} ${e.data.currency} this period`;
  }
  return e.data.message;
}

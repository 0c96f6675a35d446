// What a new browser-app user starts with, so a fresh install can chat with the demo model at once:
// LAGOON_NEW_USER_USD (a one-off USD grant, default 0) and LAGOON_NEW_USER_DIEM (a daily DIEM allowance, default 1).
import { grantUsd, setDiemDaily } from '../../billing/ledger.ts';
import { toMicros } from '../../billing/money.ts';
import type { Env } from '../../config.ts';
import type { Store } from '../../db/store.ts';

export interface StartingCredit {
  /** Micro-USD granted once. */
  usd: number;
  /** Micro-DIEM per day. */
  diemDaily: number;
}

function amountEnv(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return toMicros(n);
}

/** Read once at start, so a bad value stops the server instead of failing each sign-up. */
export function startingCredit(env: Env): StartingCredit {
  return { usd: amountEnv(env, 'LAGOON_NEW_USER_USD', 0), diemDaily: amountEnv(env, 'LAGOON_NEW_USER_DIEM', 1) };
}

export async function applyStartingCredit(store: Store, accountId: string, credit: StartingCredit): Promise<void> {
  if (credit.usd > 0) await grantUsd(store, accountId, credit.usd, 'new browser-app user');
  if (credit.diemDaily > 0) await setDiemDaily(store, accountId, credit.diemDaily);
}

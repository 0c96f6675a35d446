// What a new browser-app user starts with, so a fresh install can chat with the demo model at once:
// LAGOON_NEW_USER_USD (a one-off USD grant, default 0, for email sign-ups) and LAGOON_NEW_USER_DIEM (a daily DIEM
// allowance, default 1, for every newcomer: email sign-ups and a wallet's first sign-in to the app alike),
// read at start by lib/config.ts (Config.app.startingCredit), so a bad value stops the server instead of failing
// each sign-up.
import { grantUsd, setDiemDaily } from '../billing/ledger.ts';
import type { StartingCredit } from '../config.ts';
import type { Store } from '../db/store.ts';

export type { StartingCredit };

export async function applyStartingCredit(store: Store, accountId: string, credit: StartingCredit): Promise<void> {
  if (credit.usd > 0) await grantUsd(store, accountId, credit.usd, 'new browser-app user');
  if (credit.diemDaily > 0) await setDiemDaily(store, accountId, credit.diemDaily);
}

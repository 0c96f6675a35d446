// The signed-in user and their account, as GET /api/app/auth/me and GET /api/app/account send them.
import type { WalletChain } from '../wallet/wire.ts';

export interface AppUser {
  id: string;
  email: string | null;
  displayName: string | null;
  isAdmin: boolean;
  createdAt: number;
  /** Set for a user who signed in with a wallet (email is then null). */
  wallet?: { address: string; chain: WalletChain };
}

export interface MeResponse {
  user: AppUser;
  /** Send back in `x-csrf-token` on every state-changing request. */
  csrfToken: string;
}

export interface AccountSummary {
  /** Spendable now (what running requests have not reserved). */
  balances: { usd: number; diem: number };
  /** The daily DIEM allowance, refilled at 00:00 UTC. */
  diemDailyAllowance?: number;
  /** ISO time of the next DIEM refill. */
  diemResetsAt?: string;
  /** How this deployment adds credit (operator CLI, or wallet top-up once wallets exist). */
  /** howTo: how credit is added here, in words; wallet: this user's wallet can top up from the page (its chain's rail is on). */
  topUp: { howTo: string; url: string | null; wallet: boolean };
}

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
  topUp: { howTo: string; url: string | null };
}

/** GET /api/app/auth/recovery: whether this server can mail a password-reset link (LAGOON_SMTP_URL is set). */
export interface RecoveryInfo {
  mail: boolean;
}

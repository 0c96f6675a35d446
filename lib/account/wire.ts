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
  /** An email user's linked wallet: signing in with it reaches this same account and balance. */
  linkedWallet?: { address: string; chain: WalletChain };
}

/** POST /api/app/account/email: a wallet user added an email and password (a verification link mailed when mail is on). */
export interface EmailLoginAdded {
  user: AppUser;
  verificationSent: boolean;
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

/** GET /api/app/auth/recovery: whether this server can mail a password-reset link (LAGOON_SMTP_URL is set). */
export interface RecoveryInfo {
  mail: boolean;
}

/** POST /api/app/auth/sign-in when the password was right and the account has two-step sign-in: no session yet. */
export interface SecondFactorRequired {
  secondFactor: 'totp';
  /** Send back with the code to POST /api/app/auth/sign-in/second-factor (valid for 5 minutes, a few tries). */
  challenge: string;
}

/** GET /api/app/account/two-factor. */
export interface TwoFactorInfo {
  totp: boolean;
  /** False when this server has no secrets key to hold TOTP secrets with (enrolment is refused). */
  available: boolean;
  recoveryCodesLeft: number;
}

/** POST /api/app/account/two-factor/totp: the new secret, to enter in an authenticator app. */
export interface TotpEnrolment {
  secret: string;
  /** otpauth:// URI (what a QR code would hold). */
  uri: string;
}

/** POST /api/app/account/two-factor/totp/confirm: the recovery codes, shown this once. */
export interface RecoveryCodes {
  recoveryCodes: string[];
}

/** A registered passkey, as GET /api/app/account/passkeys lists it. */
export interface PasskeySummary {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

export interface PasskeyList {
  passkeys: PasskeySummary[];
  /** The relying party (this server's public host) passkeys are made for. */
  rpId: string;
}

/** GET /api/app/account/email: the user's address, whether a mailed link has proved it, and whether mail is on. */
export interface EmailStatus {
  email: string | null;
  verified: boolean;
  mail: boolean;
}

/** GET /api/app/auth/sso: whether the sign-in page offers single sign-on, and the provider's name for its button. */
export interface SsoInfo {
  enabled: boolean;
  name: string | null;
}

/** POST /api/app/account/sso/link: where the browser goes to link the provider (a cookie for its state comes along). */
export interface SsoLinkStart {
  url: string;
}

/** GET /api/app/account/sso: the provider identities linked to the signed-in user. */
export interface SsoIdentities {
  enabled: boolean;
  name: string | null;
  identities: { issuer: string; email: string; createdAt: number }[];
}

/** GET /api/app/account/sign-in-methods: every way this user signs in, and which may be removed (never the last). */
export interface SignInMethods {
  /** The email address (null for a wallet-only user). */
  email: string | null;
  /** Whether a password is set (a single sign-on newcomer has none). */
  password: boolean;
  /** The wallet: `own` when the user signed up with it, otherwise linked to the email user. */
  wallet: { address: string; chain: WalletChain; own: boolean } | null;
  canUnlinkWallet: boolean;
  sso: SsoIdentities;
  passkeys: number;
  canRemovePasskey: boolean;
}

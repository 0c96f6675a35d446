// The operator's pages (the first user only): every account (GET /api/app/operator/accounts), its changes
// (POST /api/app/operator/accounts/:id/grant, PATCH /api/app/operator/accounts/:id) and the audit log
// (GET /api/app/operator/audit).
import type { AuditAction } from '../accounts/operator.ts';

export interface OperatorAccount {
  id: string;
  name: string;
  tier: 'default' | 'partner';
  createdAt: number;
  /** Unix ms it was disabled, or null. */
  disabledAt: number | null;
  balances: { usd: number; diem: number; diemDaily: number };
  /** Live API keys. */
  keys: number;
  spent30Days: { usd: number; diem: number };
  /** Who uses it: a browser-app email, a wallet (namespace:address), or neither (an API-only account). */
  email: string | null;
  wallet: string | null;
  /** The operator's own account. */
  operator: boolean;
}

export interface OperatorAccountsPage {
  accounts: OperatorAccount[];
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

export interface OperatorGrantRequest {
  /** USD to add (more than 0). */
  usd: number;
  note?: string;
}

export interface OperatorAccountPatch {
  diemDaily?: number;
  tier?: 'default' | 'partner';
  disabled?: boolean;
}

/** What the audit log records (lib/accounts/operator.ts owns the list; the browser shows the same actions). */
export type OperatorAction = AuditAction;

export interface OperatorAuditEntry {
  id: string;
  /** The operator who acted (their email). */
  actor: string;
  action: OperatorAction;
  accountId: string;
  details: Record<string, unknown>;
  at: number;
}

export interface OperatorAuditPage {
  entries: OperatorAuditEntry[];
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

/** POST /api/app/operator/accounts/:id/clear-second-factor: what was cleared of the account's user. */
export interface SecondFactorCleared {
  email: string;
  /** The user had a TOTP second step (its recovery codes went with it). */
  totp: boolean;
  /** Passkeys removed. */
  passkeys: number;
}

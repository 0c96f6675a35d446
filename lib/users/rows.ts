// The users row as queries read it and the User it maps to: shared by users.ts and wallet-users.ts (which users.ts
// imports), so neither imports the other's values.

/** A team role (lib/teams): the owner, admins (members, keys, invites, the statement) and members. */
export type TeamRole = 'owner' | 'admin' | 'member';

/** The team a session acts for, as the database said on this request (lib/users/sessions.ts). */
export interface ActiveTeam {
  accountId: string;
  name: string;
  role: TeamRole;
}

/** A user as the server sees it (never the password hash). */
export interface User {
  id: string;
  email: string;
  displayName: string;
  isAdmin: boolean;
  /** The account the request acts for: the user's own, or the team the session switched to (`team`). */
  accountId: string;
  /** The user's own account, whichever account the session acts for. */
  personalAccountId: string;
  /** Set while the session acts for a team the user is a member of; null: the user's own account. */
  team: ActiveTeam | null;
  createdAt: number;
  /** Set for a user who signs in with a wallet (lib/users/wallet-users.ts): its account and key are the wallet's. */
  wallet: UserWallet | null;
  /** An email user's linked wallet (lib/users/wallet-link.ts): signing in with it reaches this user and account. */
  linkedWallet: UserWallet | null;
}

export interface UserWallet {
  id: string;
  namespace: 'eip155' | 'solana';
  /** Normalised: lowercase hex for EVM, base58 for Solana. */
  address: string;
}

/** What may be sent to the browser. */
export interface PublicUser {
  id: string;
  email: string;
  displayName: string;
  isAdmin: boolean;
  createdAt: number;
}

export interface UserRow {
  id: string;
  email: string;
  display_name: string;
  is_admin: boolean | number;
  account_id: string;
  created_at: number;
  wallet_id: string | null;
  wallet_namespace: string | null;
  wallet_address: string | null;
  linked_wallet_id: string | null;
  linked_wallet_namespace: string | null;
  linked_wallet_address: string | null;
}

// The wallet columns come from correlated lookups by primary key, so every query selecting users (sessions too)
// reads them without a join of its own.
export const USER_COLUMNS =
  'u.id, u.email, u.display_name, u.is_admin, u.account_id, u.created_at, u.wallet_id, ' +
  '(SELECT w.namespace FROM wallets w WHERE w.id = u.wallet_id) AS wallet_namespace, ' +
  '(SELECT w.address FROM wallets w WHERE w.id = u.wallet_id) AS wallet_address, u.linked_wallet_id, ' +
  '(SELECT w.namespace FROM wallets w WHERE w.id = u.linked_wallet_id) AS linked_wallet_namespace, ' +
  '(SELECT w.address FROM wallets w WHERE w.id = u.linked_wallet_id) AS linked_wallet_address';

const walletOf = (id: string | null, namespace: string | null, address: string | null): UserWallet | null =>
  id && address ? { id, namespace: namespace === 'solana' ? 'solana' : 'eip155', address } : null;

export const toUser = (r: UserRow): User => ({
  id: r.id,
  email: r.email,
  displayName: r.display_name,
  isAdmin: Boolean(r.is_admin),
  accountId: r.account_id,
  personalAccountId: r.account_id,
  team: null,
  createdAt: Number(r.created_at),
  wallet: walletOf(r.wallet_id, r.wallet_namespace, r.wallet_address),
  linkedWallet: walletOf(r.linked_wallet_id, r.linked_wallet_namespace, r.linked_wallet_address),
});

export const publicUser = (u: User): PublicUser => ({ id: u.id, email: u.email, displayName: u.displayName, isAdmin: u.isAdmin, createdAt: u.createdAt });

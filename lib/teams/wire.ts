// The teams page's shapes (GET/POST /api/app/teams…): the switcher's list, a team's members and invitations, and
// a transfer of credit.

export type TeamRoleName = 'owner' | 'admin' | 'member';
export type CapPeriodName = 'EPOCH' | 'WEEK' | 'MONTH' | 'LIFETIME';

export interface TeamSummary {
  accountId: string;
  name: string;
  role: TeamRoleName;
}

/** GET /teams: the account the session acts for (null: the user's own) and every team the user is in. */
export interface TeamsView {
  active: TeamSummary | null;
  teams: TeamSummary[];
  /** Whether invitations can go by mail (the server has SMTP). */
  mail: boolean;
}

export interface TeamMemberView {
  userId: string;
  email: string;
  displayName: string;
  role: TeamRoleName;
  /** USD per period, DIEM spent counting at par (1 DIEM = 1 USD); null: no cap. */
  capUsd: number | null;
  capPeriod: CapPeriodName;
  /** What the member spent in the cap's current period (USD and DIEM at par, settled; holds in flight left out). */
  spentUsd: number;
  /** null: any model. */
  models: string[] | null;
}

export interface TeamInviteView {
  id: string;
  role: TeamRoleName;
  email: string | null;
  createdAt: number;
  expiresAt: number;
}

/** GET /teams/:id: the team, your role, its members (admins see all; a member sees only themselves) and open invites. */
export interface TeamDetail {
  team: TeamSummary;
  /** The team's balance (USD) and yours (owner's transfers). */
  balanceUsd: number;
  members: TeamMemberView[];
  invites: TeamInviteView[];
}

/** POST /teams/:id/invites: the link (shown once) and whether it was mailed. */
export interface CreatedInvite {
  invite: TeamInviteView;
  link: string;
  mailed: boolean;
}

/** POST /teams/:id/transfer. */
export interface TransferResult {
  id: string;
  usd: number;
  /** False when this transfer id had moved the credit already (a retry). */
  moved: boolean;
  teamBalanceUsd: number;
  personalBalanceUsd: number;
}

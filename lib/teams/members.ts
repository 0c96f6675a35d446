// Teams: an account (its balance, keys and usage) that several users share, each a member with a role (owner, admin,
// member), a spend cap in USD per period and a model list. Every read here is a database read: a grant is never
// cached, so a change (a member removed, a role lowered) holds on the next request on every instance.
import { createAccount } from '../accounts/accounts.ts';
import { ApiError } from '../api/errors.ts';
import { accountKeys, forgetPrincipals } from '../auth/keys.ts';
import type { LimitPeriod } from '../billing/key-limits.ts';
import { type Queryable, type Store, storeInTx } from '../db/store.ts';
import type { TeamRole } from '../users/rows.ts';

export type { TeamRole };
export const TEAM_ROLES: readonly TeamRole[] = ['owner', 'admin', 'member'];
export const CAP_PERIODS: readonly LimitPeriod[] = ['EPOCH', 'WEEK', 'MONTH', 'LIFETIME'];
/** The description of each member's server-held key of the team (the app acts through it for them). */
export const MEMBER_KEY_DESCRIPTION = 'browser app (team member)';

export interface Membership {
  accountId: string;
  userId: string;
  role: TeamRole;
  /** Micro-USD per period; null: no cap. */
  capUsd: number | null;
  capPeriod: LimitPeriod;
  /** Catalogue ids; null: any model. */
  allowedModels: string[] | null;
  createdAt: number;
}

interface MemberRow {
  account_id: string;
  user_id: string;
  role: string;
  cap_usd: number | string | null;
  cap_period: string;
  allowed_models: string | null;
  created_at: number | string;
}

const MEMBER_COLUMNS = 'm.account_id, m.user_id, m.role, m.cap_usd, m.cap_period, m.allowed_models, m.created_at';

const toMembership = (r: MemberRow): Membership => ({
  accountId: r.account_id,
  userId: r.user_id,
  role: r.role as TeamRole,
  capUsd: r.cap_usd === null || r.cap_usd === undefined ? null : Number(r.cap_usd),
  capPeriod: r.cap_period as LimitPeriod,
  allowedModels: r.allowed_models ? (JSON.parse(r.allowed_models) as string[]) : null,
  createdAt: Number(r.created_at),
});

/** The user's membership of the team, from the database; undefined when they are not a member. */
export async function membership(q: Queryable, accountId: string, userId: string): Promise<Membership | undefined> {
  const row = await q.get<MemberRow>(`SELECT ${MEMBER_COLUMNS} FROM team_members m WHERE m.account_id = $1 AND m.user_id = $2`, [accountId, userId]);
  return row && toMembership(row);
}

/** The membership, or 403 when the user is not a member or lacks the role (`admin` lets owners through too). */
export async function requireRole(q: Queryable, accountId: string, userId: string, least: TeamRole): Promise<Membership> {
  const m = await membership(q, accountId, userId);
  if (!m) throw new ApiError('FORBIDDEN', 'You are not a member of this team');
  const rank = (r: TeamRole) => TEAM_ROLES.length - TEAM_ROLES.indexOf(r);
  if (rank(m.role) < rank(least))
    throw new ApiError('FORBIDDEN', least === 'owner' ? 'Only the team’s owner may do this' : 'Only the team’s owner and admins may do this');
  return m;
}

export interface TeamOf {
  accountId: string;
  name: string;
  role: TeamRole;
}

/** The teams the user is a member of, by name. */
export async function teamsOf(store: Store, userId: string): Promise<TeamOf[]> {
  const rows = await store.all<{ account_id: string; name: string; role: string }>(
    'SELECT m.account_id, a.name, m.role FROM team_members m JOIN accounts a ON a.id = m.account_id WHERE m.user_id = $1 ORDER BY a.name, m.account_id',
    [userId],
  );
  return rows.map((r) => ({ accountId: r.account_id, name: r.name, role: r.role as TeamRole }));
}

export interface MemberView extends Membership {
  email: string;
  displayName: string;
}

export async function listMembers(store: Store, accountId: string): Promise<MemberView[]> {
  const rows = await store.all<MemberRow & { email: string; display_name: string }>(
    `SELECT ${MEMBER_COLUMNS}, u.email, u.display_name FROM team_members m JOIN users u ON u.id = m.user_id WHERE m.account_id = $1
     ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, m.created_at, m.user_id`,
    [accountId],
  );
  return rows.map((r) => ({ ...toMembership(r), email: r.email, displayName: r.display_name }));
}

/** Adds the member and their server-held key of the team, in the caller's transaction. */
export async function addMember(q: Queryable, store: Store, accountId: string, userId: string, role: TeamRole, now = Date.now()): Promise<void> {
  await q.run('INSERT INTO team_members (account_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)', [accountId, userId, role, now]);
  await accountKeys(storeInTx(store, q), accountId).create({ type: 'INFERENCE', description: MEMBER_KEY_DESCRIPTION, browserApp: true, memberId: userId });
}

/** A team account owned by the user, with its owner's key. */
export async function createTeam(store: Store, userId: string, name: string): Promise<TeamOf> {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (!trimmed || trimmed.length > 80) throw new ApiError('INVALID_REQUEST', 'A team name is 1–80 characters', { param: 'name' });
  return store.tx(async (q) => {
    const account = await createAccount(storeInTx(store, q), trimmed);
    await addMember(q, store, account.id, userId, 'owner');
    return { accountId: account.id, name: account.name, role: 'owner' as const };
  });
}

export interface MemberPatch {
  role?: TeamRole;
  capUsd?: number | null;
  capPeriod?: LimitPeriod;
  allowedModels?: string[] | null;
}

/**
 * Changes a member's role, cap or model list. Admins may change members; only the owner changes admins or makes
 * one, and the owner's own role stays (a team always has its owner).
 */
export async function updateMember(store: Store, accountId: string, actorId: string, userId: string, patch: MemberPatch): Promise<Membership> {
  return store.tx(async (q) => {
    const actor = await requireRole(q, accountId, actorId, 'admin');
    const target = await membership(q, accountId, userId);
    if (!target) throw new ApiError('NOT_FOUND', 'No such member');
    if (target.role === 'owner' && patch.role !== undefined && patch.role !== 'owner')
      throw new ApiError('INVALID_REQUEST', 'The owner stays the owner', { param: 'role' });
    if (patch.role === 'owner' && target.role !== 'owner') throw new ApiError('INVALID_REQUEST', 'A team has one owner', { param: 'role' });
    if (actor.role !== 'owner' && (target.role !== 'member' || patch.role === 'admin'))
      throw new ApiError('FORBIDDEN', 'Only the team’s owner may change admins');
    const sets: string[] = [];
    const params: (string | number | null)[] = [accountId, userId];
    const set = (column: string, value: string | number | null) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (patch.role !== undefined) set('role', patch.role);
    if (patch.capUsd !== undefined) set('cap_usd', patch.capUsd);
    if (patch.capPeriod !== undefined) set('cap_period', patch.capPeriod);
    if (patch.allowedModels !== undefined) set('allowed_models', patch.allowedModels === null ? null : JSON.stringify(patch.allowedModels));
    if (sets.length) await q.run(`UPDATE team_members SET ${sets.join(', ')} WHERE account_id = $1 AND user_id = $2`, params);
    return (await membership(q, accountId, userId))!;
  });
}

/**
 * Removes a member (an admin removes members, the owner anyone but themselves; anyone but the owner may leave):
 * their keys of the team are revoked, and their sessions that acted for the team are back on their own account.
 * Admission and authentication read membership on every request, so this holds at once on every instance.
 */
export async function removeMember(store: Store, accountId: string, actorId: string, userId: string, now = Date.now()): Promise<void> {
  await store.tx(async (q) => {
    const target = await membership(q, accountId, userId);
    if (!target) throw new ApiError('NOT_FOUND', 'No such member');
    if (target.role === 'owner') throw new ApiError('INVALID_REQUEST', 'The owner cannot leave or be removed from the team');
    if (actorId !== userId) {
      const actor = await requireRole(q, accountId, actorId, 'admin');
      if (target.role === 'admin' && actor.role !== 'owner') throw new ApiError('FORBIDDEN', 'Only the team’s owner may remove an admin');
    }
    await q.run('DELETE FROM team_members WHERE account_id = $1 AND user_id = $2', [accountId, userId]);
    await q.run('UPDATE api_keys SET revoked_at = $3 WHERE account_id = $1 AND member_id = $2 AND revoked_at IS NULL', [accountId, userId, now]);
    await q.run('UPDATE sessions SET active_account_id = NULL WHERE user_id = $1 AND active_account_id = $2', [userId, accountId]);
  });
  forgetPrincipals(store);
}

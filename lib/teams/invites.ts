// Team invitations: a link whose token only its SHA-256 is kept of, single use, for a role, until it expires; sent by
// mail when the server has SMTP (the address must then be the accepting user's). Accepting needs a signed-in user.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import { addMember, membership, requireRole, type TeamRole } from './members.ts';

export const INVITE_TTL_MS = 7 * 86_400_000;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export interface Invite {
  id: string;
  role: TeamRole;
  email: string | null;
  createdAt: number;
  expiresAt: number;
  acceptedAt: number | null;
}

/** A new invitation to the team (admins and the owner; only the owner invites admins); its token is returned once. */
export async function createInvite(
  store: Store,
  input: { accountId: string; actorId: string; role: TeamRole; email: string | null },
  now = Date.now(),
): Promise<{ invite: Invite; token: string }> {
  if (input.role === 'owner') throw new ApiError('INVALID_REQUEST', 'A team has one owner: invite an admin or a member', { param: 'role' });
  const actor = await requireRole(store, input.accountId, input.actorId, 'admin');
  if (input.role === 'admin' && actor.role !== 'owner') throw new ApiError('FORBIDDEN', 'Only the team’s owner may invite admins');
  const token = randomBytes(32).toString('base64url');
  const invite: Invite = { id: randomUUID(), role: input.role, email: input.email, createdAt: now, expiresAt: now + INVITE_TTL_MS, acceptedAt: null };
  await store.run(
    'INSERT INTO team_invites (token_hash, id, account_id, role, email, created_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
    [hashToken(token), invite.id, input.accountId, invite.role, invite.email, input.actorId, now, invite.expiresAt],
  );
  return { invite, token };
}

/** The team's invitations not yet accepted and not expired, newest first. */
export async function openInvites(store: Store, accountId: string, now = Date.now()): Promise<Invite[]> {
  const rows = await store.all<{ id: string; role: string; email: string | null; created_at: number | string; expires_at: number | string }>(
    'SELECT id, role, email, created_at, expires_at FROM team_invites WHERE account_id = $1 AND accepted_at IS NULL AND expires_at > $2 ORDER BY created_at DESC, id',
    [accountId, now],
  );
  return rows.map((r) => ({
    id: r.id,
    role: r.role as TeamRole,
    email: r.email,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
    acceptedAt: null,
  }));
}

/** Withdraws an open invitation (admins and the owner): it expires now. */
export async function revokeInvite(store: Store, accountId: string, actorId: string, id: string, now = Date.now()): Promise<void> {
  await requireRole(store, accountId, actorId, 'admin');
  const n = await store.run('UPDATE team_invites SET expires_at = $3 WHERE account_id = $1 AND id = $2 AND accepted_at IS NULL AND expires_at > $3', [
    accountId,
    id,
    now,
  ]);
  if (n !== 1) throw new ApiError('NOT_FOUND', 'No such open invitation');
}

const GONE = 'This invitation is not valid: it was used, withdrawn or has expired. Ask the team for a new one.';

/** Accepts an invitation for the signed-in user: they become a member with its role. Single use, whoever races. */
export async function acceptInvite(
  store: Store,
  user: { id: string; email: string },
  token: string,
  now = Date.now(),
): Promise<{ accountId: string; name: string; role: TeamRole }> {
  if (!TOKEN_SHAPE.test(token)) throw new ApiError('NOT_FOUND', GONE);
  return store.tx(async (q) => {
    const row = await q.get<{
      account_id: string;
      role: string;
      email: string | null;
      expires_at: number | string;
      accepted_at: number | string | null;
      name: string;
    }>(
      `SELECT i.account_id, i.role, i.email, i.expires_at, i.accepted_at, a.name FROM team_invites i JOIN accounts a ON a.id = i.account_id WHERE i.token_hash = $1${store.forUpdate}`,
      [hashToken(token)],
    );
    if (!row || row.accepted_at !== null || Number(row.expires_at) <= now) throw new ApiError('NOT_FOUND', GONE);
    if (row.email && row.email !== user.email.toLowerCase())
      throw new ApiError('FORBIDDEN', `This invitation was sent to ${row.email}: sign in with that address to accept it`);
    if (await membership(q, row.account_id, user.id)) throw new ApiError('CONFLICT', 'You are already a member of this team');
    const taken = await q.run('UPDATE team_invites SET accepted_by = $2, accepted_at = $3 WHERE token_hash = $1 AND accepted_at IS NULL', [
      hashToken(token),
      user.id,
      now,
    ]);
    if (taken !== 1) throw new ApiError('NOT_FOUND', GONE);
    await addMember(q, store, row.account_id, user.id, row.role as TeamRole, now);
    return { accountId: row.account_id, name: row.name, role: row.role as TeamRole };
  });
}

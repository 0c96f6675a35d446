// What a session may read of the account it acts for. Outside a team: everything of the user's own account. In a
// team, the owner and admins read the team's statement, summary and alerts and may filter usage by member; a member
// reads only their own usage. The role is the one the session read from the database on this request.
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import type { User } from '../users/rows.ts';

const FOR_ADMINS = 'In a team, this is for its owner and admins only';

/** 403 for a team member who is not an admin (the statement, its export, the billing summary, the alerts). */
export function refuseTeamMember(user: User): void {
  if (user.team?.role === 'member') throw new ApiError('FORBIDDEN', FOR_ADMINS);
}

/**
 * The member whose usage a request may read: a team member always reads their own (asking for another's is 403);
 * an admin reads one member's when asked (any user who made keys of the team, former members included), else all;
 * outside a team there are no members to filter by.
 */
export async function memberScope(store: Store, user: User, requested: string | undefined): Promise<string | undefined> {
  if (!user.team) {
    if (requested !== undefined) throw new ApiError('INVALID_REQUEST', 'Only a team’s usage can be filtered by member', { param: 'memberId' });
    return undefined;
  }
  if (user.team.role === 'member') {
    if (requested !== undefined && requested !== user.id) throw new ApiError('FORBIDDEN', 'A team member sees only their own usage');
    return user.id;
  }
  if (requested === undefined) return undefined;
  const known = await store.get('SELECT id FROM api_keys WHERE account_id = $1 AND member_id = $2 LIMIT 1', [user.accountId, requested]);
  if (!known) throw new ApiError('NOT_FOUND', 'No such member of this team', { param: 'memberId' });
  return requested;
}

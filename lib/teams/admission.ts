// A team member's limits, checked where every billed call is admitted (lib/billing/metered.ts#admit), like a key's
// modelPrivacy: the member must still be one (read from the database on each call), the model must be on their list,
// and their cap must not be spent already. This is the early, cheap refusal, before any budget is taken; the cap's
// authority is the reservation (lib/billing/member-cap.ts), which also counts what their requests in flight hold.
import { ApiError } from '../api/errors.ts';
import type { Principal } from '../auth/keys.ts';
import { memberCapExceeded, memberSettled, periodStart } from '../billing/member-cap.ts';
import type { Queryable } from '../db/store.ts';
import { membership } from './members.ts';

/**
 * Refuses a team key's call: 401 once its member has left, 403 MODEL_NOT_ALLOWED_FOR_MEMBER for a model off their
 * list, 402 TEAM_MEMBER_SPEND_LIMIT_EXCEEDED when their settled spend this period plus the least the call can hold
 * (`leastHold`, micro-units) is over their cap. Keys of a personal account pass without a read.
 */
export async function refuseByMember(
  q: Queryable,
  principal: Pick<Principal, 'accountId' | 'key'>,
  modelId: string | undefined,
  leastHold: number,
  now = Date.now(),
): Promise<void> {
  const userId = principal.key.memberId;
  if (!userId) return;
  const m = await membership(q, principal.accountId, userId);
  if (!m) throw new ApiError('AUTHENTICATION_FAILED_INACTIVE_KEY', 'You are no longer a member of this team');
  if (modelId && m.allowedModels && !m.allowedModels.includes(modelId)) {
    throw new ApiError('MODEL_NOT_ALLOWED_FOR_MEMBER', `Your team lets you use only ${m.allowedModels.join(', ')}, not ${modelId}`, {
      models: m.allowedModels,
      modelId,
    });
  }
  if (m.capUsd === null) return;
  const settled = await memberSettled(q, principal.accountId, userId, periodStart(m.capPeriod, now));
  if (settled + leastHold > m.capUsd) throw memberCapExceeded({ cap: m.capUsd, period: m.capPeriod }, settled, 0);
}

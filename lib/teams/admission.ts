// A team member's limits, enforced where every billed call is admitted (lib/billing/metered.ts#admit), like a key's
// modelPrivacy: the member must still be one (read from the database on each call), the model must be on their list,
// and what they spent this period plus the call's worst case must fit their cap. Nothing is held when refused.
import { ApiError } from '../api/errors.ts';
import type { Principal } from '../auth/keys.ts';
import type { LimitPeriod } from '../billing/key-limits.ts';
import { microsToString } from '../billing/money.ts';
import type { Queryable } from '../db/store.ts';
import { membership } from './members.ts';

/** When the cap's current period began (UTC): a day, a week from Monday, a calendar month, or ever. */
export function periodStart(period: LimitPeriod, now: number): number {
  const d = new Date(now);
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (period === 'EPOCH') return day;
  if (period === 'WEEK') return day - ((d.getUTCDay() + 6) % 7) * 86_400_000;
  if (period === 'MONTH') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  return 0;
}

/** What the member's keys of the team were charged (micro-USD) since `from`, and what their requests in flight hold. */
export async function memberSpent(q: Queryable, accountId: string, userId: string, from: number): Promise<{ usd: number; heldUsd: number }> {
  const [spent, held] = await Promise.all([
    q.get<{ usd: number | string | null }>(
      'SELECT SUM(u.usd) AS usd FROM usage u JOIN api_keys k ON k.id = u.key_id WHERE u.account_id = $1 AND k.member_id = $2 AND u.created_at >= $3',
      [accountId, userId, from],
    ),
    q.get<{ usd: number | string | null }>(
      'SELECT SUM(h.usd) AS usd FROM holds h JOIN api_keys k ON k.id = h.key_id WHERE h.account_id = $1 AND k.member_id = $2',
      [accountId, userId],
    ),
  ]);
  return { usd: Number(spent?.usd ?? 0), heldUsd: Number(held?.usd ?? 0) };
}

const PERIOD_WORDS: Record<LimitPeriod, string> = { EPOCH: 'per day', WEEK: 'per week', MONTH: 'per month', LIFETIME: 'in all' };

/**
 * Refuses a team key's call: 401 once its member has left, 403 MODEL_NOT_ALLOWED_FOR_MEMBER for a model off their
 * list, 402 TEAM_MEMBER_SPEND_LIMIT_EXCEEDED when the worst case (`estimateUsd`, micro-USD) does not fit their cap.
 * Keys of a personal account pass without a read.
 */
export async function refuseByMember(
  q: Queryable,
  principal: Pick<Principal, 'accountId' | 'key'>,
  modelId: string | undefined,
  estimateUsd: number,
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
  const { usd, heldUsd } = await memberSpent(q, principal.accountId, userId, periodStart(m.capPeriod, now));
  if (usd + heldUsd + estimateUsd > m.capUsd) {
    throw new ApiError(
      'TEAM_MEMBER_SPEND_LIMIT_EXCEEDED',
      `You have reached your team spend cap of ${microsToString(m.capUsd)} USD ${PERIOD_WORDS[m.capPeriod]} (spent ${microsToString(usd)} USD)`,
      { capUsd: microsToString(m.capUsd), spentUsd: microsToString(usd), period: m.capPeriod },
    );
  }
}

// GET /api/app/rate-limits: for each chat model, the figures of the user's tier and what is left of them now for the
// user's server-held key, the credential the browser app's chats are counted against. Read with the limiter's peek,
// which consumes nothing, so opening the dashboard never costs the user a request.
import type { LimitSubject, RateLimiter } from './rate-limiter.ts';
import type { ModelEntry } from '../models/schema.ts';
import { principalForUser } from '../users/users.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json } from '../http/app-route.ts';
import type { ModelRateLimits, RateLimitsReport, RateMeter } from '../wire.ts';
import { isRemote } from '../catalogue/sources.ts';

const num = (h: Record<string, string>, name: string) => Number(h[name] ?? NaN);

/** Meters from the x-ratelimit-* headers peek returns (request resets are Unix seconds; token resets, seconds from now). */
function metersOf(h: Record<string, string>, now: number): { requests: RateMeter; tokens?: RateMeter } {
  const requests = {
    limit: num(h, 'x-ratelimit-limit-requests'),
    remaining: num(h, 'x-ratelimit-remaining-requests'),
    resetsAt: num(h, 'x-ratelimit-reset-requests') * 1000,
  };
  if (h['x-ratelimit-limit-tokens'] === undefined) return { requests };
  return {
    requests,
    tokens: {
      limit: num(h, 'x-ratelimit-limit-tokens'),
      remaining: num(h, 'x-ratelimit-remaining-tokens'),
      resetsAt: now + num(h, 'x-ratelimit-reset-tokens') * 1000,
    },
  };
}

/** A model's meters for one credential (what peek shows left now) and its daily request figure, when the tier has one. */
export async function modelMeters(
  limiter: RateLimiter,
  subject: LimitSubject & { model: ModelEntry },
  now: number,
): Promise<Pick<ModelRateLimits, 'requestsPerMinute' | 'tokensPerMinute' | 'requestsPerDay'>> {
  const { requests, tokens } = metersOf(await limiter.peek(subject), now);
  const rpd = limiter.classOf(subject.model, subject.tier).rpd;
  return {
    requestsPerMinute: requests,
    ...(tokens ? { tokensPerMinute: tokens } : {}),
    ...(rpd !== undefined ? { requestsPerDay: rpd } : {}),
  };
}

export function rateLimitRoutes(deps: AppDeps) {
  const { svc } = deps;
  const remote = isRemote(deps);
  return {
    rateLimits: appRoute(deps, 'session', async ({ session: { user } }) => {
      const principal = await principalForUser(svc.store, user);
      const tier = principal.accountTier === 'partner' ? 'partner' : 'default';
      const windowSeconds = svc.limiter.config.windowSeconds;
      // In remote mode chats spend the operator's key at the external provider: its limits are not ours to report.
      if (remote) return json({ mode: 'remote', tier, windowSeconds, models: [] } satisfies RateLimitsReport);
      const now = Date.now();
      const text = svc.catalogue.models.filter((m): m is ModelEntry => m.type === 'text');
      const models: ModelRateLimits[] = await Promise.all(
        text.map(async (m) => ({
          modelId: m.id,
          name: m.name,
          sizeTier: m.tier,
          ...(await modelMeters(svc.limiter, { credential: principal.keyId, modelId: m.id, model: m, tier }, now)),
        })),
      );
      return json({ mode: 'local', tier, windowSeconds, models } satisfies RateLimitsReport);
    }),
  };
}

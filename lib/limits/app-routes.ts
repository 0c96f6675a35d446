// The rate-limit page's routes: every catalogue model's figures at the account's tier and what is left of them now
// for one of the account's live keys (budgets are per key and model; read with the limiter's peek, which consumes
// nothing), and the account's breach log, filtered and paginated. The account comes from the session; a key id
// that is not one of its live keys is not found (404).
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { accountKeys } from '../auth/keys.ts';
import { queryBreaches } from './breach-log.ts';
import { principalForUser } from '../users/users.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json } from '../http/app-route.ts';
import { BREACH_TYPES } from './wire.ts';
import type { BreachPage, LimitsReport, ModelLimitStatus } from '../wire.ts';
import { isRemote } from '../catalogue/sources.ts';
import { idParam, instant, intParam, queryOf, rangeRefine, totalPages } from '../api/dash-query.ts';
import { modelMeters } from './app-rate-limits.ts';

const statusQuery = z.strictObject({ keyId: idParam.optional() });
const logQuery = z
  .strictObject({
    keyId: idParam.optional(),
    modelId: idParam.optional(),
    type: z.enum(BREACH_TYPES).optional(),
    from: instant.optional(),
    to: instant.optional(),
    page: intParam(1, 1_000_000, 1),
    limit: intParam(1, 200, 50),
  })
  .superRefine(rangeRefine);

export function limitRoutes(deps: AppDeps) {
  const { svc } = deps;
  return {
    rateLimitModels: appRoute(deps, 'session', async ({ req, session: { user } }) => {
      const q = queryOf(deps, statusQuery, req);
      const principal = await principalForUser(svc.store, user);
      const keys = accountKeys(svc.store, user.accountId);
      const live = await keys.listActive();
      const keyId = q.keyId ?? principal.keyId;
      if (!live.some((k) => k.id === keyId)) throw new ApiError('NOT_FOUND', 'API key not found (or no longer live)', { param: 'keyId' });
      const tier = principal.accountTier === 'partner' ? 'partner' : 'default';
      const now = Date.now();
      const models: ModelLimitStatus[] = await Promise.all(
        svc.catalogue.models.map(async (m) => {
          const subject = { credential: keyId, modelId: m.id, model: m, tier } as const;
          const [meters, today] = await Promise.all([modelMeters(svc.limiter, subject, now), svc.limiter.dayPeek(subject)]);
          return {
            modelId: m.id,
            name: m.name,
            type: m.type,
            sizeTier: m.tier ?? '',
            ...meters,
            ...(today ? { requestsToday: today } : {}),
          };
        }),
      );
      const body: LimitsReport = {
        mode: isRemote(deps) ? 'remote' : 'local',
        tier,
        windowSeconds: svc.limiter.config.windowSeconds,
        keyId,
        keys: live.map((k) => ({ id: k.id, description: k.description, browserApp: k.id === principal.keyId })),
        models,
      };
      return json(body);
    }),

    rateLimitLog: appRoute(deps, 'session', async ({ req, session: { user } }) => {
      const q = queryOf(deps, logQuery, req);
      if (q.keyId !== undefined && !(await accountKeys(svc.store, user.accountId).get(q.keyId))) {
        throw new ApiError('NOT_FOUND', 'API key not found', { param: 'keyId' });
      }
      const [{ items, total }, keys] = await Promise.all([queryBreaches(svc.store, user.accountId, q), accountKeys(svc.store, user.accountId).list(1000)]);
      const names = new Map(keys.map((k) => [k.id, k.description]));
      const body: BreachPage = {
        items: items.map((b) => ({
          at: Date.parse(b.timestamp),
          keyId: b.apiKeyId,
          keyDescription: b.apiKeyId ? (names.get(b.apiKeyId) ?? null) : null,
          modelId: b.modelId,
          type: b.rateLimitType,
          tier: b.rateLimitTier,
        })),
        total,
        page: q.page,
        limit: q.limit,
        totalPages: totalPages(total, q.limit),
      };
      return json(body);
    }),
  };
}

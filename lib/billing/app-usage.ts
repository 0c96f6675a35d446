// GET /api/app/usage?days=7|30|90: the signed-in user's requests, tokens and spend. Scoped by construction: the
// account (or, in remote mode, the user) comes from the session, never from the request.
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json } from '../http/app-route.ts';
import { isRemote } from '../catalogue/sources.ts';
import { billingUsage } from './app-usage-ledger.ts';
import { chatUsage } from './app-usage-remote.ts';
import { periodOf, spanOf } from './usage-span.ts';
import { memberScope } from '../teams/scope.ts';

export function usageRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  const remote = isRemote(deps);
  return {
    usage: appRoute(deps, 'session', async ({ req, session: { user } }) => {
      const url = new URL(req.url);
      const days = periodOf(url.searchParams.get('days'));
      const span = spanOf(days, Date.now());
      if (remote) return json(await chatUsage(store, user.id, days, span));
      // In a team: a member's own usage, or (owner and admins) one member's when asked.
      const memberId = await memberScope(store, user, url.searchParams.get('memberId') ?? undefined);
      return json(await billingUsage(store, user.accountId, days, span, memberId));
    }),
  };
}

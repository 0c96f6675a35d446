// GET /api/app/usage?days=7|30|90: the signed-in user's requests, tokens and spend. Scoped by construction: the
// account (or, in remote mode, the user) comes from the session, never from the request.
import type { AppDeps } from '../deps.ts';
import { appRoute, json } from '../http.ts';
import { isRemote } from './catalogues.ts';
import { billingUsage } from './usage-billing.ts';
import { chatUsage } from './usage-chats.ts';
import { periodOf, spanOf } from './usage-span.ts';

export function usageRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  const remote = isRemote(deps);
  return {
    usage: appRoute(deps, 'session', async ({ req, session: { user } }) => {
      const days = periodOf(new URL(req.url).searchParams.get('days'));
      const span = spanOf(days, Date.now());
      return json(remote ? await chatUsage(store, user.id, days, span) : await billingUsage(store, user.accountId, days, span));
    }),
  };
}

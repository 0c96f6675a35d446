// The alerts page's routes: the signed-in owner's thresholds and channels, a new webhook secret, a test alert, and
// the delivery log. The account is the session's; a webhook URL is checked against the safe fetcher's rules when it
// is saved (and again, pinned, at every delivery), so it cannot point at the host's own network.
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { intParam, queryOf, totalPages } from '../api/dash-query.ts';
import { fromMicros, toMicros } from '../billing/money.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json } from '../http/app-route.ts';
import { vetUrl } from '../net/safe-fetch.ts';
import type { User } from '../users/users.ts';
import type { AlertDeliveryPage, AlertSettingsView, AlertTestSent } from '../wire.ts';
import { summary } from './rules.ts';
import { refuseTeamMember } from '../teams/scope.ts';
import type { EventBody } from './store.ts';

const BODY_LIMIT = 16 * 1024;
const amount = z.number().min(0).max(1_000_000_000).nullable();
const settingsBody = z.strictObject({
  email: z.string().trim().max(254).pipe(z.email()).nullable(),
  webhookUrl: z.string().trim().max(2048).nullable(),
  lowUsd: amount,
  lowDiem: amount,
  keyBudgets: z.boolean(),
});
const logQuery = z.strictObject({ page: intParam(1, 1_000_000, 1), limit: intParam(1, 200, 25) });

export function alertRoutes(deps: AppDeps) {
  const { svc } = deps;
  const alerts = () => svc.alerts;

  async function view(user: User): Promise<AlertSettingsView> {
    const s = await alerts().alerts.settings(user.accountId);
    return {
      saved: s !== undefined,
      email: s ? s.email : null,
      accountEmail: user.email,
      mail: alerts().mail,
      webhookUrl: s?.webhookUrl ?? null,
      webhookSecret: s?.webhookSecret ?? null,
      lowUsd: s?.lowUsd != null ? fromMicros(s.lowUsd) : null,
      lowDiem: s?.lowDiem != null ? fromMicros(s.lowDiem) : null,
      keyBudgets: s?.keyBudgets ?? true,
    };
  }

  return {
    alertSettings: appRoute(deps, 'session', async ({ session: { user } }) => {
      // A team's alerts are its owner's and admins'.
      refuseTeamMember(user);
      return json(await view(user));
    }),

    saveAlerts: appRoute(deps, { auth: 'session+csrf', body: settingsBody, bodyLimit: BODY_LIMIT }, async ({ session: { user }, body }) => {
      refuseTeamMember(user);
      const webhookUrl = body.webhookUrl || null;
      if (webhookUrl) {
        try {
          await vetUrl(webhookUrl, { allowHosts: svc.config.fetchAllowHosts, timeoutMs: 5_000 });
        } catch (e) {
          throw new ApiError('INVALID_REQUEST', `The webhook URL cannot be used: ${(e as Error).message}`, { param: 'webhookUrl' });
        }
      }
      await alerts().alerts.save(user.accountId, {
        email: body.email || null,
        webhookUrl,
        lowUsd: body.lowUsd === null ? null : toMicros(body.lowUsd),
        lowDiem: body.lowDiem === null ? null : toMicros(body.lowDiem),
        keyBudgets: body.keyBudgets,
      });
      // A threshold the balance is already below alerts now, once.
      await alerts().evaluate(user.accountId);
      return json(await view(user));
    }),

    rotateAlertSecret: appRoute(deps, 'session+csrf', async ({ session: { user } }) => {
      refuseTeamMember(user);
      if (!(await alerts().alerts.settings(user.accountId))) throw new ApiError('CONFLICT', 'Save your alert settings first.');
      await alerts().alerts.rotateSecret(user.accountId);
      return json(await view(user));
    }),

    testAlert: appRoute(deps, 'session+csrf', async ({ session: { user } }) => {
      refuseTeamMember(user);
      const sent = await alerts().sendTest(user.accountId);
      if (!sent) throw new ApiError('CONFLICT', 'Set an email address or a webhook URL, and save, before sending a test.');
      const rows = await alerts().alerts.log(user.accountId, 1, 10);
      const out: AlertTestSent = {
        eventId: sent.id,
        channels: rows.items
          .filter((r) => r.event_id === sent.id)
          .map((r) => r.channel)
          .sort(),
      };
      return json(out, 202);
    }),

    alertDeliveries: appRoute(deps, 'session', async ({ req, session: { user } }) => {
      refuseTeamMember(user);
      const q = queryOf(deps, logQuery, req);
      const { items, total } = await alerts().alerts.log(user.accountId, q.page, q.limit);
      const out: AlertDeliveryPage = {
        items: items.map((r) => ({
          id: r.id,
          eventId: r.event_id,
          at: r.created_at,
          updatedAt: r.updated_at,
          event: r.event,
          summary: summary(JSON.parse(r.payload) as EventBody),
          channel: r.channel,
          target: r.target,
          status: r.status,
          attempts: r.attempts,
          responseCode: r.response_code,
          error: r.last_error,
        })),
        total,
        page: q.page,
        pages: totalPages(total, q.limit),
      };
      return json(out);
    }),
  };
}

// The teams page's routes and the account switcher's. Every check reads the database: the session's team (its role
// included) comes from lib/users/sessions.ts on each request, and each handler checks the actor's role again in
// the transaction that acts, so a removed member or a lowered role holds at once on every instance.
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { memberSettled, periodStart } from '../billing/member-cap.ts';
import { fromMicros, toMicros } from '../billing/money.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent } from '../http/app-route.ts';
import { parseCookies, SESSION_COOKIE, setSessionAccount } from '../users/sessions.ts';
import type { User } from '../users/users.ts';
import type { CreatedInvite, TeamDetail, TeamInviteView, TeamMemberView, TeamsView, TransferResult } from '../wire.ts';
import { acceptInvite, createInvite, type Invite, openInvites, revokeInvite } from './invites.ts';
import { CAP_PERIODS, createTeam, listMembers, type MemberView, membership, removeMember, requireRole, teamsOf, updateMember } from './members.ts';
import { transferCredit } from './transfer.ts';

const BODY_LIMIT = 16 * 1024;
const modelList = z.array(z.string().trim().min(1).max(200)).max(200);
const createBody = z.strictObject({ name: z.string().trim().min(1).max(80) });
const switchBody = z.strictObject({ accountId: z.string().min(1).max(100).nullable() });
const memberBody = z.strictObject({
  role: z.enum(['admin', 'member']).optional(),
  capUsd: z.number().min(0).max(1_000_000_000).nullable().optional(),
  capPeriod: z.enum(CAP_PERIODS as ['EPOCH', 'WEEK', 'MONTH', 'LIFETIME']).optional(),
  models: modelList.nullable().optional(),
});
const inviteBody = z.strictObject({ role: z.enum(['admin', 'member']), email: z.string().trim().toLowerCase().max(254).pipe(z.email()).nullable().optional() });
const acceptBody = z.strictObject({ token: z.string().min(1).max(100) });
const transferBody = z.strictObject({
  id: z.uuid(),
  direction: z.enum(['to_team', 'to_personal']),
  usd: z.number().positive().max(1_000_000_000),
});

const inviteView = (i: Invite): TeamInviteView => ({ id: i.id, role: i.role, email: i.email, createdAt: i.createdAt, expiresAt: i.expiresAt });

export function inviteMailText(team: string, link: string): string {
  return [`You are invited to join the team "${team}" on Lagoon (the link works once, for 7 days):`, link, '', 'Sign in, then open the link.'].join('\n');
}

export function teamRoutes(deps: AppDeps) {
  const { svc } = deps;
  const { store } = svc;

  async function teamsView(user: User, activeId: string | null): Promise<TeamsView> {
    const teams = await teamsOf(store, user.id);
    return { active: teams.find((t) => t.accountId === activeId) ?? null, teams, mail: svc.mailer !== undefined };
  }

  async function memberView(m: MemberView, now: number): Promise<TeamMemberView> {
    // What counts against the cap: USD and DIEM (at par) settled this period.
    const spent = await memberSettled(store, m.accountId, m.userId, periodStart(m.capPeriod, now));
    return {
      userId: m.userId,
      email: m.email,
      displayName: m.displayName,
      role: m.role,
      capUsd: m.capUsd === null ? null : fromMicros(m.capUsd),
      capPeriod: m.capPeriod,
      spentUsd: fromMicros(spent),
      models: m.allowedModels,
    };
  }

  const sessionToken = (req: Request) => parseCookies(req.headers.get('cookie') ?? undefined)[SESSION_COOKIE];

  return {
    teams: appRoute(deps, 'session', async ({ session: { user } }) => json(await teamsView(user, user.team?.accountId ?? null))),

    createTeam: appRoute(deps, { auth: 'session+csrf', body: createBody, bodyLimit: BODY_LIMIT }, async ({ session: { user }, body }) => {
      if (user.wallet && !user.email) throw new ApiError('INVALID_REQUEST', 'Sign in with an email address to run a team');
      return json(await createTeam(store, user.id, body.name), 201);
    }),

    switchAccount: appRoute(deps, { auth: 'session+csrf', body: switchBody, bodyLimit: BODY_LIMIT }, async ({ req, session: { user }, body }) => {
      if (body.accountId !== null && !(await membership(store, body.accountId, user.id))) throw new ApiError('FORBIDDEN', 'You are not a member of this team');
      await setSessionAccount(store, sessionToken(req), body.accountId);
      return json(await teamsView(user, body.accountId));
    }),

    team: appRoute(deps, 'session', async ({ params, session: { user } }) => {
      const me = await requireRole(store, params.id, user.id, 'member');
      const now = Date.now();
      const admin = me.role !== 'member';
      const all = await listMembers(store, params.id);
      const visible = admin ? all : all.filter((m) => m.userId === user.id);
      const [account, members, invites] = await Promise.all([
        svc.ledger.balances(params.id, now),
        Promise.all(visible.map((m) => memberView(m, now))),
        admin ? openInvites(store, params.id, now) : Promise.resolve([]),
      ]);
      const name = (await teamsOf(store, user.id)).find((t) => t.accountId === params.id)?.name ?? '';
      return json<TeamDetail>({
        team: { accountId: params.id, name, role: me.role },
        balanceUsd: fromMicros(account.usd - account.usdHeld),
        members,
        invites: invites.map(inviteView),
      });
    }),

    updateMember: appRoute(deps, { auth: 'session+csrf', body: memberBody, bodyLimit: BODY_LIMIT }, async ({ params, session: { user }, body }) => {
      const models = body.models === undefined ? undefined : body.models === null || body.models.length === 0 ? null : [...new Set(body.models)];
      if (models) {
        const unknown = models.filter((id) => !svc.catalogue.byId.has(id));
        if (unknown.length) throw new ApiError('INVALID_REQUEST', `Unknown model: ${unknown.join(', ')}`, { param: 'models' });
      }
      await updateMember(store, params.id, user.id, params.userId, {
        role: body.role,
        capUsd: body.capUsd === undefined ? undefined : body.capUsd === null ? null : toMicros(body.capUsd),
        capPeriod: body.capPeriod,
        allowedModels: models,
      });
      const m = (await listMembers(store, params.id)).find((x) => x.userId === params.userId);
      if (!m) throw new ApiError('NOT_FOUND', 'No such member');
      return json(await memberView(m, Date.now()));
    }),

    removeMember: appRoute(deps, 'session+csrf', async ({ params, session: { user } }) => {
      await removeMember(store, params.id, user.id, params.userId);
      return noContent();
    }),

    createInvite: appRoute(deps, { auth: 'session+csrf', body: inviteBody, bodyLimit: BODY_LIMIT }, async ({ params, session: { user }, body }) => {
      const email = body.email ?? null;
      if (email && !svc.mailer)
        throw new ApiError('INVALID_REQUEST', 'This server sends no mail (LAGOON_SMTP_URL is not set): share the link instead', { param: 'email' });
      const { invite, token } = await createInvite(store, { accountId: params.id, actorId: user.id, role: body.role, email });
      // The token rides in the fragment: it never reaches a server log or a Referer.
      const link = `${svc.config.wallet.publicOrigin}/teams/join#token=${token}`;
      let mailed = false;
      if (email && svc.mailer) {
        const name = (await teamsOf(store, user.id)).find((t) => t.accountId === params.id)?.name ?? 'a team';
        await svc.mailer.send({ to: email, subject: `Join ${name} on Lagoon`, text: inviteMailText(name, link) });
        mailed = true;
      }
      return json<CreatedInvite>({ invite: inviteView(invite), link, mailed }, 201);
    }),

    revokeInvite: appRoute(deps, 'session+csrf', async ({ params, session: { user } }) => {
      await revokeInvite(store, params.id, user.id, params.inviteId);
      return noContent();
    }),

    acceptInvite: appRoute(deps, { auth: 'session+csrf', body: acceptBody, bodyLimit: BODY_LIMIT }, async ({ req, session: { user }, body }) => {
      const team = await acceptInvite(store, user, body.token);
      await setSessionAccount(store, sessionToken(req), team.accountId);
      return json(await teamsView(user, team.accountId));
    }),

    transferCredit: appRoute(deps, { auth: 'session+csrf', body: transferBody, bodyLimit: BODY_LIMIT }, async ({ params, session: { user }, body }) => {
      const from = body.direction === 'to_team' ? user.personalAccountId : params.id;
      const held = (await svc.ledger.balances(from)).usdHeld;
      const t = await transferCredit(store, {
        id: body.id,
        userId: user.id,
        personalAccountId: user.personalAccountId,
        teamAccountId: params.id,
        direction: body.direction,
        usd: toMicros(body.usd),
        sourceHeldUsd: held,
      });
      const [team, personal] = await Promise.all([svc.ledger.balances(params.id), svc.ledger.balances(user.personalAccountId)]);
      return json<TransferResult>({
        id: t.id,
        usd: fromMicros(t.usd),
        moved: t.moved,
        teamBalanceUsd: fromMicros(team.usd - team.usdHeld),
        personalBalanceUsd: fromMicros(personal.usd - personal.usdHeld),
      });
    }),
  };
}

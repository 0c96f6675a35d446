// Single sign-on routes (lib/users/oidc.ts has the flow and the rules of who it reaches):
//   GET  /auth/sso           whether it is on, and the provider's name for the sign-in page's button
//   GET  /auth/sso/start     a top-level navigation: 303 to the provider, with the state in an HttpOnly cookie
//   GET  /auth/sso/callback  the provider's redirect back: state, code (PKCE) and ID token (nonce) checked, then the
//                            session and a 303 to where the user was going; a refusal goes to the sign-in page with
//                            ?sso_error=<reason> and no session
//   GET  /account/sso        the identities linked to the signed-in user
//   POST /account/sso/link   a signed-in user links the provider (CSRF-checked; the browser then goes to the URL)
import { ApiError } from '../api/errors.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, isHttps, json } from '../http/app-route.ts';
import { log } from '../log.ts';
import { OidcClient, SSO_STATE_COOKIE, SsoRefused, ssoUser, userIdentities } from '../users/oidc.ts';
import { parseCookies } from '../users/sessions.ts';
import { startSession } from '../users/session-start.ts';
import { applyStartingCredit } from '../users/starting-credit.ts';
import type { SsoIdentities, SsoInfo, SsoLinkStart } from './wire.ts';

const COOKIE_PATH = '/api/app/auth/sso';

/** Only a path on this site (never `//host` or a URL: no open redirect), and not back to the auth pages. */
function safeNext(raw: string | null | undefined): string {
  if (!raw?.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\') || raw.length > 1000) return '/';
  if (/^\/(sign-in|sign-up)(?:[/?#]|$)/.test(raw)) return '/';
  return raw;
}

const stateCookie = (value: string, secure: boolean, maxAge: number) =>
  `${SSO_STATE_COOKIE}=${value}; Path=${COOKIE_PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;

function redirect(location: string, cookies: string[]): Response {
  const headers = new Headers({ location, 'cache-control': 'no-store' });
  for (const c of cookies) headers.append('set-cookie', c);
  return new Response(null, { status: 303, headers });
}

export function ssoRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  const settings = deps.app.oidc;
  const client = settings ? new OidcClient(settings, () => deps.svc.config.wallet.publicOrigin) : undefined;
  // Discovery at start, so the first sign-in does not wait for it; a failure is logged and retried on first use.
  client?.configuration().catch((e) => log.warn({ err: e, issuer: settings?.issuer }, 'single sign-on: discovery failed at start'));

  const enabled = (): OidcClient => {
    if (!client) throw new ApiError('NOT_FOUND', 'Single sign-on is not configured on this server');
    return client;
  };

  return {
    ssoInfo: appRoute(deps, 'none', async () => json<SsoInfo>({ enabled: Boolean(settings), name: settings?.name ?? null })),

    ssoStart: appRoute(deps, 'none', async ({ req }) => {
      const c = enabled();
      const next = safeNext(new URL(req.url).searchParams.get('next'));
      try {
        const { url, state } = await c.begin(store, { next });
        return redirect(url, [stateCookie(state, isHttps(req), 600)]);
      } catch (e) {
        if (e instanceof SsoRefused) return redirect(`/sign-in?sso_error=${e.reason}`, []);
        throw e;
      }
    }),

    ssoCallback: appRoute(deps, 'none', async ({ req }) => {
      const c = enabled();
      const secure = isHttps(req);
      const clear = stateCookie('', secure, 0);
      const cookieState = parseCookies(req.headers.get('cookie') ?? undefined)[SSO_STATE_COOKIE];
      let linking = false;
      try {
        const done = await c.finish(store, new URL(req.url).searchParams, cookieState);
        linking = done.linkUserId !== null;
        const { user, created } = await ssoUser(store, c.settings, done.claims, done.linkUserId);
        if (created) await applyStartingCredit(store, user.accountId, deps.app.startingCredit);
        if (linking) return redirect(done.next, [clear]);
        let session: Response;
        try {
          session = await startSession(deps, req, user, 200);
        } catch (e) {
          throw new SsoRefused('disabled', (e as Error).message);
        }
        return redirect(done.next, [clear, ...session.headers.getSetCookie()]);
      } catch (e) {
        if (!(e instanceof SsoRefused)) throw e;
        log.info({ reason: e.reason, detail: e.message }, 'single sign-on refused');
        return redirect(`${linking ? '/account' : '/sign-in'}?sso_error=${e.reason}`, [clear]);
      }
    }),

    ssoIdentities: appRoute(deps, 'session', async ({ session: { user } }) =>
      json<SsoIdentities>({ enabled: Boolean(settings), name: settings?.name ?? null, identities: await userIdentities(store, user.id) }),
    ),

    ssoLink: appRoute(deps, 'session+csrf', async ({ req, session: { user } }) => {
      const c = enabled();
      if (user.wallet) throw new ApiError('INVALID_REQUEST', 'Add an email address first: single sign-on links to an email user');
      try {
        const { url, state } = await c.begin(store, { next: '/account', linkUserId: user.id });
        const headers = { 'set-cookie': stateCookie(state, isHttps(req), 600) };
        return json<SsoLinkStart>({ url }, 200, headers);
      } catch (e) {
        if (e instanceof SsoRefused) throw new ApiError('INVALID_REQUEST', 'The sign-on provider cannot be reached right now');
        throw e;
      }
    }),
  };
}

// Account routes: who am I, sign up, sign in, sign out. Sign-up and sign-in run before any session (so before any
// CSRF token) exists: they take JSON only (a cross-site form cannot send it without a CORS preflight, which this
// server never grants) and refuse a foreign Origin or a cross-site Sec-Fetch-Site.
import { ApiError, isApiError } from '../../api/errors.ts';
import { checkOrigin } from '../../users/csrf.ts';
import { clearSessionCookie, endSession, parseCookies, SESSION_COOKIE } from '../../users/sessions.ts';
import { signIn, signUp } from '../../users/users.ts';
import type { AppDeps } from '../deps.ts';
import { isHttps, json, noContent, optionalSession, readJson, requireSession, route } from '../http.ts';
import type { MeResponse } from '../wire.ts';
import { authLimits } from './auth-limits.ts';
import { clientIp } from './client-ip.ts';
import { toAppUser } from './present.ts';
import { startSession } from './wallet-session.ts';
import { applyStartingCredit, startingCredit } from './starting-credit.ts';

// Credentials are small; a larger body is not a sign-in.
const AUTH_BODY_LIMIT = 16 * 1024;

const sessionToken = (req: Request): string | undefined => parseCookies(req.headers.get('cookie') ?? undefined)[SESSION_COOKIE];

function refuseForeignOrigin(req: Request): void {
  checkOrigin(req.headers.get('origin'), req.headers.get('x-forwarded-host') ?? req.headers.get('host'), req.headers.get('sec-fetch-site'));
}

export function authRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  const limits = authLimits(deps);
  const credit = startingCredit(deps.env);

  return {
    me: route(async (req) => {
      const s = await optionalSession(deps, req);
      if (!s) {
        // A stale cookie is removed, so the browser stops sending it.
        const headers: Record<string, string> | undefined = sessionToken(req) ? { 'set-cookie': clearSessionCookie(isHttps(req)) } : undefined;
        throw new ApiError('AUTHENTICATION_FAILED', 'Sign in to continue', undefined, headers);
      }
      const body: MeResponse = { user: toAppUser(s.user), csrfToken: s.csrfToken };
      return json(body);
    }),

    signUp: route(async (req) => {
      refuseForeignOrigin(req);
      const body = await readJson(req, AUTH_BODY_LIMIT);
      const ip = clientIp(req);
      await limits.signUp(ip);
      let created: Awaited<ReturnType<typeof signUp>>;
      try {
        created = await signUp(store, { email: body.email, password: body.password, displayName: body.displayName });
      } catch (e) {
        // Only created accounts use up the network's sign-up budget; a typo in the form does not.
        await limits.signUpRefused(ip);
        throw e;
      }
      await applyStartingCredit(store, created.accountId, credit);
      return startSession(deps, req, created.user, 201);
    }),

    signIn: route(async (req) => {
      refuseForeignOrigin(req);
      const body = await readJson(req, AUTH_BODY_LIMIT);
      const email = typeof body.email === 'string' ? body.email : '';
      const ip = clientIp(req);
      await limits.attempt(ip, email);
      const user = await signIn(store, { email: body.email, password: body.password });
      await limits.succeeded(ip, email);
      return startSession(deps, req, user, 200);
    }),

    signOut: route(async (req) => {
      try {
        await requireSession(deps, req);
      } catch (e) {
        // Signing out without a (valid) session has nothing to protect: clear the cookie all the same.
        if (!isApiError(e) || e.code !== 'AUTHENTICATION_FAILED') throw e;
        refuseForeignOrigin(req);
      }
      await endSession(store, sessionToken(req));
      return noContent({ 'set-cookie': clearSessionCookie(isHttps(req)) });
    }),
  };
}

// Account routes: who am I, sign up, sign in (with its second step when the user has TOTP), sign out. Sign-up and sign-in run before any session (so before any
// CSRF token) exists: they take JSON only (a cross-site form cannot send it without a CORS preflight, which this
// server never grants) and refuse a foreign Origin or a cross-site Sec-Fetch-Site.
import { refuseDisabledAccount } from '../accounts/accounts.ts';
import { ApiError } from '../api/errors.ts';
import { clearSessionCookie, endSession, parseCookies, SESSION_COOKIE } from '../users/sessions.ts';
import { createSignInChallenge, hasTotp, redeemSignInChallenge } from '../users/totp.ts';
import { getUser, signIn, signUp } from '../users/users.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { z } from 'zod';
import { appRoute, checkSessionCsrf, isHttps, json, noContent } from '../http/app-route.ts';
import type { MeResponse } from '../wire.ts';
import { authLimits } from './auth-limits.ts';
import type { SecondFactorRequired } from './wire.ts';
import { toAppUser } from '../conversations/present.ts';
import { startSession } from '../users/session-start.ts';
import { applyStartingCredit } from '../users/starting-credit.ts';
import { claimsOperator } from '../users/operator-setup.ts';

// Credentials are small; a larger body is not a sign-in.
const AUTH_BODY_LIMIT = 16 * 1024;

// The fields' own rules (an email's form, a password's length) are the user module's, which words its refusals.
const field = z.string().optional();
const signUpBody = z.object({ email: field, password: field, displayName: field, setupToken: field });
const signInBody = z.object({ email: field, password: field });
const secondFactorBody = z.object({ challenge: field, code: field });

const sessionToken = (req: Request): string | undefined => parseCookies(req.headers.get('cookie') ?? undefined)[SESSION_COOKIE];

export function authRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  const limits = authLimits(deps);
  const credit = deps.app.startingCredit;

  return {
    me: appRoute(deps, 'none', async ({ req, optionalSession }) => {
      const s = await optionalSession();
      if (!s) {
        // A stale cookie is removed, so the browser stops sending it.
        const headers: Record<string, string> | undefined = sessionToken(req) ? { 'set-cookie': clearSessionCookie(isHttps(req)) } : undefined;
        throw new ApiError('AUTHENTICATION_FAILED', 'Sign in to continue', undefined, headers);
      }
      refuseDisabledAccount(s.accountDisabledAt);
      const body: MeResponse = { user: toAppUser(s.user), csrfToken: s.csrfToken };
      return json(body);
    }),

    signUp: appRoute(deps, { auth: 'origin', body: signUpBody, bodyLimit: AUTH_BODY_LIMIT }, async ({ req, ip, body }) => {
      await limits.signUp(ip);
      let created: Awaited<ReturnType<typeof signUp>>;
      try {
        const operator = await claimsOperator(store, deps.svc.config.app.operatorToken, body.setupToken);
        created = await signUp(store, { email: body.email, password: body.password, displayName: body.displayName }, { operator });
      } catch (e) {
        // Only created accounts use up the network's sign-up budget; a typo in the form does not.
        await limits.signUpRefused(ip);
        throw e;
      }
      await applyStartingCredit(store, created.accountId, credit);
      return startSession(deps, req, created.user, 201);
    }),

    signIn: appRoute(deps, { auth: 'origin', body: signInBody, bodyLimit: AUTH_BODY_LIMIT }, async ({ req, ip, body }) => {
      const email = body.email ?? '';
      await limits.attempt(ip, email);
      const user = await signIn(store, { email: body.email, password: body.password });
      await limits.succeeded(ip, email);
      // Two-step sign-in: the password is right, but no session until the second factor (POST below).
      if (await hasTotp(store, user.id)) return json<SecondFactorRequired>({ secondFactor: 'totp', challenge: await createSignInChallenge(store, user.id) });
      return startSession(deps, req, user, 200);
    }),

    // The sign-in's second step: the challenge from the password step and a TOTP or recovery code. Wrong codes count
    // against the IP's sign-in failures as well as the challenge's own few tries.
    signInSecondFactor: appRoute(deps, { auth: 'origin', body: secondFactorBody, bodyLimit: AUTH_BODY_LIMIT }, async ({ req, ip, body }) => {
      await limits.attempt(ip, `second-factor:${ip}`);
      const userId = await redeemSignInChallenge(store, deps.svc.secrets, body.challenge, body.code);
      await limits.succeeded(ip, `second-factor:${ip}`);
      const user = await getUser(store, userId);
      if (!user) throw new ApiError('AUTHENTICATION_FAILED', 'Sign in to continue');
      return startSession(deps, req, user, 200, { secondFactor: true });
    }),

    // Declared 'origin': signing out without a (valid) session has nothing to protect, so the cookie is cleared all
    // the same; with a session, its CSRF token is checked too.
    signOut: appRoute(deps, 'origin', async ({ req, optionalSession }) => {
      const s = await optionalSession();
      if (s) checkSessionCsrf(req, s);
      await endSession(store, sessionToken(req));
      return noContent({ 'set-cookie': clearSessionCookie(isHttps(req)) });
    }),
  };
}

// The signed-in user's own settings: their display name, and their password (the current one required, counted
// against the same brute-force budget as sign-ins, since a stolen session could otherwise guess it; every other
// session of theirs ends, this one stays).
import { z } from 'zod';
import { parseCookies, SESSION_COOKIE } from '../users/sessions.ts';
import { changePassword, setDisplayName } from '../users/passwords.ts';
import { DISPLAY_NAME_MAX, getUser, PASSWORD_MAX } from '../users/users.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json } from '../http/app-route.ts';
import type { PasswordChanged, ProfileResponse } from '../wire.ts';
import { authLimits } from './auth-limits.ts';
import { toAppUser } from '../conversations/present.ts';

const BODY_LIMIT = 16 * 1024;
// Lengths are checked loosely here (the user functions apply the exact rules and say which field failed).
const profileBody = z.strictObject({ displayName: z.string().max(DISPLAY_NAME_MAX * 4) });
const passwordBody = z.strictObject({ currentPassword: z.string().max(PASSWORD_MAX * 4), newPassword: z.string().max(PASSWORD_MAX * 4) });

export function accountSettingsRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  const limits = authLimits(deps);

  return {
    updateProfile: appRoute(deps, { auth: 'session+csrf', body: profileBody, bodyLimit: BODY_LIMIT }, async ({ session: { user }, body }) => {
      await setDisplayName(store, user.id, body.displayName);
      const updated = await getUser(store, user.id);
      const out: ProfileResponse = { user: toAppUser(updated ?? user) };
      return json(out);
    }),

    changePassword: appRoute(deps, { auth: 'session+csrf', body: passwordBody, bodyLimit: BODY_LIMIT }, async ({ req, ip, session: { user }, body }) => {
      await limits.attempt(ip, user.email);
      const keep = parseCookies(req.headers.get('cookie') ?? undefined)[SESSION_COOKIE];
      const sessionsEnded = await changePassword(store, user, body, keep);
      await limits.succeeded(ip, user.email);
      const out: PasswordChanged = { sessionsEnded };
      return json(out);
    }),
  };
}

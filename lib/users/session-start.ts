// Starting a browser session for a user who just proved who they are, by password (auth.ts) or by wallet signature
// (wallet.ts): the one place sessions and their cookies are made. The MeResponse and its Set-Cookie, with any earlier
// session of this browser ended first (no fixation).
import { getAccount, refuseDisabledAccount } from '../accounts/accounts.ts';
import { createSession, endSession, parseCookies, SESSION_COOKIE, SESSION_TTL_MS, sessionCookie } from './sessions.ts';
import type { User } from './users.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { isHttps, json, type JsonReply } from '../http/app-route.ts';
import type { MeResponse } from '../wire.ts';
import { toAppUser } from '../conversations/present.ts';

/** `secondFactor`: the sign-in proved a second factor (a TOTP step or a passkey), which operator routes may require. */
export async function startSession(
  deps: AppDeps,
  req: Request,
  user: User,
  status: number,
  opts: { secondFactor?: boolean } = {},
): Promise<JsonReply<MeResponse>> {
  const { store } = deps.svc;
  // A disabled account signs in nowhere (password or wallet): refused before any session is made.
  refuseDisabledAccount((await getAccount(store, user.accountId))?.disabledAt);
  await endSession(store, parseCookies(req.headers.get('cookie') ?? undefined)[SESSION_COOKIE]);
  const s = await createSession(store, user.id, { secondFactor: opts.secondFactor });
  const body: MeResponse = { user: toAppUser(user), csrfToken: s.csrfToken };
  return json(body, status, { 'set-cookie': sessionCookie(s.token, { secure: isHttps(req), maxAgeSeconds: SESSION_TTL_MS / 1000 }) });
}

// The signed-in user's two-step sign-in (TOTP): its state, enrolment (a secret, then a code from it, which turns it
// on and gives the recovery codes once), and turning it off with a current or recovery code.
import { z } from 'zod';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent } from '../http/app-route.ts';
import { beginTotp, confirmTotp, disableTotp, twoFactorStatus } from '../users/totp.ts';
import { authLimits } from './auth-limits.ts';
import type { RecoveryCodes, TotpEnrolment, TwoFactorInfo } from './wire.ts';

const BODY_LIMIT = 4 * 1024;
const codeBody = z.strictObject({ code: z.string().max(64) });

export function twoFactorRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  const limits = authLimits(deps);

  return {
    twoFactor: appRoute(deps, 'session', async ({ session: { user } }) => json<TwoFactorInfo>(await twoFactorStatus(store, deps.svc.secrets, user.id))),

    beginTotp: appRoute(deps, 'session+csrf', async ({ session: { user } }) => json<TotpEnrolment>(await beginTotp(store, deps.svc.secrets, user))),

    confirmTotp: appRoute(deps, { auth: 'session+csrf', body: codeBody, bodyLimit: BODY_LIMIT }, async ({ ip, session: { user }, body }) => {
      await limits.attempt(ip, user.email);
      const recoveryCodes = await confirmTotp(store, deps.svc.secrets, user, body.code);
      await limits.succeeded(ip, user.email);
      return json<RecoveryCodes>({ recoveryCodes });
    }),

    disableTotp: appRoute(deps, { auth: 'session+csrf', body: codeBody, bodyLimit: BODY_LIMIT }, async ({ ip, session: { user }, body }) => {
      await limits.attempt(ip, user.email);
      await disableTotp(store, deps.svc.secrets, user, body.code);
      await limits.succeeded(ip, user.email);
      return noContent();
    }),
  };
}

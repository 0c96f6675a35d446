// Recovery by mail: GET /auth/recovery says whether it is on (LAGOON_SMTP_URL); POST /auth/password-reset mails a
// one-time link to the address if an email user has it, and answers the same 202 either way (the mail is made and
// sent after the answer, so neither the body nor the time tells whether the account exists); POST
// /auth/password-reset/confirm sets the new password from the link's token and ends every session of the user, who
// then signs in. Both POSTs run before any session exists: JSON only, foreign origins refused, rate-limited.
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent } from '../http/app-route.ts';
import { log } from '../log.ts';
import { createResetToken, resetWithToken, resettableUser } from '../users/password-reset.ts';
import { normaliseEmail } from '../users/users.ts';
import { authLimits } from './auth-limits.ts';
import { type Mailer, smtpMailer } from './mailer.ts';
import type { RecoveryInfo } from './wire.ts';

const BODY_LIMIT = 16 * 1024;
const field = z.string().optional();
const requestBody = z.object({ email: field });
const confirmBody = z.object({ token: field, password: field });

const OFF = 'Password reset by email is off on this server. Ask its operator to reset your password.';

export function resetMailText(link: string, ttlSeconds: number): string {
  const minutes = Math.round(ttlSeconds / 60);
  return [
    'Someone (hopefully you) asked to reset the password of your Lagoon account.',
    '',
    `Choose a new password here (the link works once, for ${minutes} minutes):`,
    link,
    '',
    'If you did not ask for this, ignore this mail: your password stays as it is.',
  ].join('\n');
}

export function recoveryRoutes(deps: AppDeps, mailer: Mailer | undefined = deps.app.mail && smtpMailer(deps.app.mail)) {
  const { store } = deps.svc;
  const mail = deps.app.mail;
  const limits = authLimits(deps);

  async function mailReset(email: string): Promise<void> {
    if (!mail || !mailer) return;
    const user = await resettableUser(store, email);
    if (!user) return;
    const token = await createResetToken(store, user.id, mail.resetTtlSeconds * 1000);
    // The token rides in the fragment: it never reaches a server log or a Referer.
    const link = `${deps.svc.config.wallet.publicOrigin}/reset-password#token=${token}`;
    await mailer.send({ to: user.email, subject: 'Reset your Lagoon password', text: resetMailText(link, mail.resetTtlSeconds) });
  }

  return {
    recoveryInfo: appRoute(deps, 'none', async () => json<RecoveryInfo>({ mail: Boolean(mail) })),

    requestPasswordReset: appRoute(deps, { auth: 'origin', body: requestBody, bodyLimit: BODY_LIMIT }, async ({ ip, body }) => {
      if (!mail) throw new ApiError('NOT_FOUND', OFF);
      const email = normaliseEmail(body.email);
      await limits.resetMail(ip, email);
      mailReset(email).catch((e) => log.error({ err: e }, 'password-reset mail failed'));
      return json({ sent: true as const }, 202);
    }),

    confirmPasswordReset: appRoute(deps, { auth: 'origin', body: confirmBody, bodyLimit: BODY_LIMIT }, async ({ ip, body }) => {
      if (!mail) throw new ApiError('NOT_FOUND', OFF);
      // Guessing tokens counts against the sign-in failure budget of this IP (a 256-bit token is not guessable, but
      // a flood of tries is still refused early).
      await limits.attempt(ip, `reset:${ip}`);
      await resetWithToken(store, body.token, body.password);
      await limits.succeeded(ip, `reset:${ip}`);
      return noContent();
    }),
  };
}

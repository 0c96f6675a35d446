// Recovery by mail: GET /auth/recovery says whether it is on (LAGOON_SMTP_URL); POST /auth/password-reset mails a
// one-time link to the address if an email user has it, and answers the same 202 either way (the mail is made and
// sent after the answer, so neither the body nor the time tells whether the account exists); POST
// /auth/password-reset/confirm sets the new password from the link's token and ends every session of the user, who
// then signs in. Both POSTs run before any session exists: JSON only, foreign origins refused, rate-limited. Email
// verification: the signed-in user asks for a link (limited like reset mails), which proves the address once opened.
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent } from '../http/app-route.ts';
import { log } from '../log.ts';
import { createVerificationToken, emailVerifiedAt, verifyEmail } from '../users/email-verification.ts';
import { createResetToken, resetWithToken, resettableUser } from '../users/password-reset.ts';
import { addEmailLogin, normaliseEmail } from '../users/users.ts';
import { toAppUser } from '../conversations/present.ts';
import { authLimits } from './auth-limits.ts';
import { type Mailer, smtpMailer } from './mailer.ts';
import type { EmailLoginAdded, EmailStatus, RecoveryInfo } from './wire.ts';

const BODY_LIMIT = 16 * 1024;
const field = z.string().optional();
const requestBody = z.object({ email: field });
const confirmBody = z.object({ token: field, password: field });
const verifyBody = z.object({ token: field });
const addEmailBody = z.object({ email: field, password: field });

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

export function verifyMailText(link: string): string {
  return [
    'Confirm that this address belongs to your Lagoon account (the link works once, for a day):',
    link,
    '',
    'If you did not ask for this, ignore this mail.',
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

    // Email verification: the signed-in user's address and whether it is proved; a mailed link proves it.
    emailStatus: appRoute(deps, 'session', async ({ session: { user } }) =>
      json<EmailStatus>({ email: user.wallet ? null : user.email, verified: (await emailVerifiedAt(store, user.id)) !== null, mail: Boolean(mail) }),
    ),

    requestEmailVerification: appRoute(deps, 'session+csrf', async ({ ip, session: { user } }) => {
      if (!mail || !mailer) throw new ApiError('NOT_FOUND', 'This server sends no mail (LAGOON_SMTP_URL is not set), so it cannot verify addresses.');
      if (user.wallet) throw new ApiError('INVALID_REQUEST', 'This user signs in with a wallet and has no email address');
      if ((await emailVerifiedAt(store, user.id)) !== null) throw new ApiError('CONFLICT', 'Your email address is already verified');
      await limits.resetMail(ip, user.email);
      const token = await createVerificationToken(store, user.id, user.email);
      const link = `${deps.svc.config.wallet.publicOrigin}/verify-email#token=${token}`;
      // Sent before answering: the user is signed in, so the answer may say whether the mail server took it.
      try {
        await mailer.send({ to: user.email, subject: 'Verify your Lagoon email address', text: verifyMailText(link) });
      } catch (e) {
        log.error({ err: e }, 'verification mail failed');
        throw new ApiError('CONFLICT', 'The mail server did not take the message. Try again later.');
      }
      return json({ sent: true as const }, 202);
    }),

    // A wallet user adds an email and password (lib/users/users.ts addEmailLogin): one account, two ways in. The
    // verification link is mailed when mail is on; a mail failure does not undo the change (Settings can resend).
    addEmailLogin: appRoute(deps, { auth: 'session+csrf', body: addEmailBody, bodyLimit: BODY_LIMIT }, async ({ ip, session: { user }, body }) => {
      await limits.attempt(ip, `add-email:${user.id}`);
      const updated = await addEmailLogin(store, user, body);
      await limits.succeeded(ip, `add-email:${user.id}`);
      let verificationSent = false;
      if (mail && mailer) {
        try {
          const token = await createVerificationToken(store, updated.id, updated.email);
          const link = `${deps.svc.config.wallet.publicOrigin}/verify-email#token=${token}`;
          await mailer.send({ to: updated.email, subject: 'Verify your Lagoon email address', text: verifyMailText(link) });
          verificationSent = true;
        } catch (e) {
          log.error({ err: e }, 'verification mail failed');
        }
      }
      return json<EmailLoginAdded>({ user: toAppUser(updated), verificationSent });
    }),

    confirmEmail: appRoute(deps, { auth: 'origin', body: verifyBody, bodyLimit: BODY_LIMIT }, async ({ body }) => {
      await verifyEmail(store, body.token);
      return noContent();
    }),
  };
}

// Passkey routes: the signed-in user lists, registers (options, then the browser's answer) and removes passkeys;
// signing in with one takes options, then the browser's assertion, and starts a session. The relying party is the
// server's public origin (LAGOON_PUBLIC_URL, else http://localhost:PORT).
import { z } from 'zod';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent } from '../http/app-route.ts';
import { deletePasskey, listPasskeys, registerPasskey, registrationOptions, relyingParty, signInOptions, verifyPasskeySignIn } from '../users/passkeys.ts';
import { startSession } from '../users/session-start.ts';
import { getUser } from '../users/users.ts';
import { ApiError } from '../api/errors.ts';
import { authLimits } from './auth-limits.ts';
import type { PasskeyList, PasskeySummary } from './wire.ts';

const BODY_LIMIT = 32 * 1024;
const registerBody = z.object({ response: z.record(z.string(), z.unknown()), name: z.string().max(400).optional() });
const signInBody = z.object({ response: z.record(z.string(), z.unknown()) });

export function passkeyRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  const limits = authLimits(deps);
  const rp = () => relyingParty(deps.svc.config.wallet.publicOrigin);

  return {
    passkeys: appRoute(deps, 'session', async ({ session: { user } }) => json<PasskeyList>({ passkeys: await listPasskeys(store, user.id), rpId: rp().id })),

    passkeyOptions: appRoute(deps, 'session+csrf', async ({ session: { user } }) => json(await registrationOptions(store, rp(), user))),

    addPasskey: appRoute(deps, { auth: 'session+csrf', body: registerBody, bodyLimit: BODY_LIMIT }, async ({ session: { user }, body }) =>
      json<PasskeySummary>(await registerPasskey(store, rp(), user, body.response, body.name), 201),
    ),

    deletePasskey: appRoute(deps, 'session+csrf', async ({ session: { user }, params }) => {
      await deletePasskey(store, user, params.id ?? '');
      return noContent();
    }),

    passkeySignInOptions: appRoute(deps, 'origin', async () => json(await signInOptions(store, rp()))),

    passkeySignIn: appRoute(deps, { auth: 'origin', body: signInBody, bodyLimit: BODY_LIMIT }, async ({ req, ip, body }) => {
      await limits.attempt(ip, `passkey:${ip}`);
      const userId = await verifyPasskeySignIn(store, rp(), body.response);
      await limits.succeeded(ip, `passkey:${ip}`);
      const user = await getUser(store, userId);
      if (!user) throw new ApiError('AUTHENTICATION_FAILED', 'Sign in to continue');
      return startSession(deps, req, user, 200, { secondFactor: true });
    }),
  };
}

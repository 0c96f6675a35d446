// GET /account/sign-in-methods: every way the signed-in user can sign in, for Settings' "Sign-in methods" section,
// with whether each removable one may go (never the last: lib/users/sign-in-methods.ts; the removing routes check
// again). Linking and unlinking themselves are the wallet's, recovery's and single sign-on's routes.
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json } from '../http/app-route.ts';
import { userIdentities } from '../users/oidc.ts';
import { signInMethodCounts } from '../users/sign-in-methods.ts';
import type { SignInMethods } from './wire.ts';

export function signInMethodRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  const oidc = deps.app.oidc;
  return {
    signInMethods: appRoute(deps, 'session', async ({ session: { user } }) => {
      const [counts, identities] = await Promise.all([signInMethodCounts(store, user), userIdentities(store, user.id)]);
      const others = Number(counts.password) + counts.sso + counts.passkeys;
      const w = user.wallet ?? user.linkedWallet;
      return json<SignInMethods>({
        email: user.wallet ? null : user.email,
        password: counts.password,
        wallet: w ? { address: w.address, chain: w.namespace === 'solana' ? 'solana' : 'evm', own: Boolean(user.wallet) } : null,
        // A wallet user's own wallet is how the account was made: it goes only by adding an email first.
        canUnlinkWallet: Boolean(user.linkedWallet) && others > 0,
        sso: { enabled: Boolean(oidc), name: oidc?.name ?? null, identities },
        passkeys: counts.passkeys,
        canRemovePasskey: counts.passkeys > 1 || Number(counts.password) + Number(counts.wallet) + counts.sso > 0,
      });
    }),
  };
}

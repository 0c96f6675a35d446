// Catalogue routes: the chat models and the signed-in user's credit (the characters: characters.ts).
import { fromMicros, nextEpochStart } from '../billing/money.ts';
import type { User } from '../users/users.ts';
import type { WalletConfig } from '../wallet/config.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json } from '../http/app-route.ts';
import type { AccountSummary, AppModelsResponse } from '../wire.ts';
import { catalogueSource, isRemote, webSearchUnavailable } from './sources.ts';

/**
 * How credit is added in this deployment, in words the user can act on (never a shell command: the operator grants
 * credit on the Operator page). A wallet user pays from the wallet it signed in with (the server refuses any other
 * payer), so only that wallet's chain is named, and only when it is enabled.
 */
function topUpHowTo(user: User, diemDaily: number, remote: boolean, rails: WalletConfig['rails']): { howTo: string; wallet: boolean } {
  const allowance = diemDaily > 0 ? `Your free allowance of ${diemDaily} DIEM refills every day at 00:00 UTC. ` : '';
  if (remote)
    return {
      howTo: `${allowance}Chats on this server are billed to its operator's account with the inference provider; ask the operator if you run out.`,
      wallet: false,
    };
  if (user.wallet) {
    const evm = user.wallet.namespace === 'eip155';
    if (evm ? rails.evm : rails.solana)
      return {
        howTo: `${allowance}Top up with USDC on ${evm ? 'Base' : 'Solana'} from this page: sign the payment in your wallet, and the credit is yours once it settles.`,
        wallet: true,
      };
    return { howTo: `${allowance}This server takes no USDC top-ups on ${evm ? 'Base' : 'Solana'} at the moment; ask its operator for credit.`, wallet: false };
  }
  if (user.isAdmin)
    return {
      howTo: `${allowance}You are this server's operator: grant USD credit to any account, yours included, from the Operator page (Manage on the account's row).`,
      wallet: false,
    };
  return {
    howTo: `${allowance}USD credit on this server is added by its operator: ask them to add credit to the account you signed in with (${user.email}).`,
    wallet: false,
  };
}

export function catalogueRoutes(deps: AppDeps) {
  const { svc } = deps;
  const catalogue = catalogueSource(deps);
  const remote = isRemote(deps);

  return {
    models: appRoute(deps, 'session', async () => {
      const unavailable = webSearchUnavailable(deps);
      const body: AppModelsResponse = { models: await catalogue.models(), webSearch: { available: unavailable === null, reason: unavailable } };
      return json(body);
    }),

    account: appRoute(deps, 'session', async ({ session: { user } }) => {
      const now = Date.now();
      const b = await svc.ledger.balances(user.accountId, now);
      // Spendable: what in-flight requests have not reserved (as the service's GET /billing/balance reports it).
      const body: AccountSummary = {
        balances: { usd: fromMicros(Math.max(0, b.usd - b.usdHeld)), diem: fromMicros(Math.max(0, b.diem - b.diemHeld)) },
        diemDailyAllowance: fromMicros(b.diemDaily),
        diemResetsAt: new Date(nextEpochStart(now)).toISOString(),
        topUp: { ...topUpHowTo(user, fromMicros(b.diemDaily), remote, svc.wallet.settings.rails), url: null },
      };
      return json(body);
    }),
  };
}

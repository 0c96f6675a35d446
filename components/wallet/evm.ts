// EVM wallets through wagmi: injected wallets discovered with EIP-6963 (multiInjectedProviderDiscovery), connected on
// Base, signing the sign-in text (personal_sign), the x402 payment (EIP-3009 typed data) and the cancellation of an
// auto top-up authorization (EIP-712 CancelAuthorization). Loaded only on demand.
import { createConfig } from 'wagmi';
import type { Connector } from 'wagmi';
import { connect, getConnectors, signMessage, signTypedData, watchConnectors } from 'wagmi/actions';
import { base } from 'wagmi/chains';
import { custom } from 'viem';
import { x402Client } from '@x402/core/client';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import type { WalletTopUpRequirements } from '@/lib/wire.ts';
import type { ConnectedWallet, WalletOption } from '@/components/wallet/types.ts';
import { WalletProblem } from '@/components/wallet/wallet-errors.ts';

// The app never reads the chain from the browser (the server settles payments), so no RPC endpoint is configured:
// a read would fail loudly rather than reach a public node.
const noReads = custom({
  request: async ({ method }) => {
    throw new Error(`${method}: this app does not read the chain from the browser`);
  },
});

let config: ReturnType<typeof makeConfig> | undefined;
const makeConfig = () =>
  createConfig({ chains: [base], connectors: [], multiInjectedProviderDiscovery: true, storage: null, ssr: false, transports: { [base.id]: noReads } });
const wagmi = () => (config ??= makeConfig());

/** Only wallets that announced themselves (EIP-6963): each has a name and an icon to show. */
const announced = (cs: readonly Connector[]) => cs.filter((c) => c.type === 'injected' && c.id !== 'injected');

const toOption = (c: Connector): WalletOption => ({ id: `evm:${c.uid}`, key: c.id, name: c.name, icon: c.icon, chain: 'evm' });

export function watchEvmWallets(onChange: (wallets: WalletOption[]) => void): () => void {
  onChange(announced(getConnectors(wagmi())).map(toOption));
  return watchConnectors(wagmi(), { onChange: (cs) => onChange(announced(cs).map(toOption)) });
}

export async function connectEvm(option: Pick<WalletOption, 'key'>): Promise<ConnectedWallet> {
  const c = announced(getConnectors(wagmi())).find((x) => x.id === option.key);
  if (!c) throw new WalletProblem('gone');
  // Asking for Base up front: the wallet switches (or offers to) before anything is signed.
  const { accounts } = await connect(wagmi(), { connector: c, chainId: base.id }).catch(async (e: Error) => {
    if (e.name !== 'ConnectorAlreadyConnectedError') throw e;
    return { accounts: await c.getAccounts() };
  });
  const address = accounts[0];
  if (!address) throw new WalletProblem('noAccount');
  return {
    chain: 'evm',
    address,
    signMessage: (message) => signMessage(wagmi(), { connector: c, account: address, message }),
    signTypedData: (data) => signTypedData(wagmi(), { ...data, connector: c, account: address } as never),
    async signPayment(required: WalletTopUpRequirements) {
      const signer = {
        address,
        signTypedData: (m: Parameters<typeof signTypedData>[1]) => signTypedData(wagmi(), { ...m, connector: c, account: address } as never),
      };
      const client = new x402Client().register(required.accepts[0]?.network ?? 'eip155:8453', new ExactEvmScheme(signer as never));
      // The amount was chosen and confirmed by the user in the picker; the x402 client's own $1 cap does not apply.
      client.setSpendControls(false);
      return (await client.createPaymentPayload(required as never)) as unknown as Record<string, unknown>;
    },
  };
}

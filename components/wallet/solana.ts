// Solana wallets through the wallet-standard registry (what @solana/wallet-adapter-react discovers): any wallet that
// supports Solana mainnet and solana:signMessage is listed; it signs the sign-in text with Ed25519.
import { getWallets } from '@wallet-standard/app';
import type { Wallet, WalletAccount } from '@wallet-standard/base';
import { base58 } from '@scure/base';
import type { ConnectedWallet, WalletOption } from '@/components/wallet/types.ts';

const MAINNET = 'solana:mainnet';
type Connect = { connect(): Promise<{ accounts: readonly WalletAccount[] }> };
type SignMessage = { signMessage(...inputs: { account: WalletAccount; message: Uint8Array }[]): Promise<{ signature: Uint8Array }[]> };

const usable = (w: Wallet) => w.chains.includes(MAINNET) && 'standard:connect' in w.features && 'solana:signMessage' in w.features;
const toOption = (w: Wallet): WalletOption => ({ id: `solana:${w.name}`, key: w.name, name: w.name, icon: w.icon, chain: 'solana' });

export function watchSolanaWallets(onChange: (wallets: WalletOption[]) => void): () => void {
  const registry = getWallets();
  const emit = () => onChange(registry.get().filter(usable).map(toOption));
  emit();
  const offRegister = registry.on('register', emit);
  const offUnregister = registry.on('unregister', emit);
  return () => {
    offRegister();
    offUnregister();
  };
}

export async function connectSolana(option: Pick<WalletOption, 'key'>): Promise<ConnectedWallet> {
  const wallet = getWallets().get().filter(usable).find((w) => w.name === option.key);
  if (!wallet) throw new Error('That wallet is no longer available in this browser');
  const { accounts } = await (wallet.features['standard:connect'] as Connect).connect();
  const account = accounts.find((a) => a.chains.includes(MAINNET)) ?? accounts[0];
  if (!account) throw new Error('The wallet shared no account');
  return {
    chain: 'solana',
    address: account.address,
    async signMessage(message) {
      const [out] = await (wallet.features['solana:signMessage'] as SignMessage).signMessage({ account, message: new TextEncoder().encode(message) });
      return base58.encode(out.signature);
    },
    async signPayment() {
      // Building a Solana payment needs the chain's state (the mint, a recent blockhash), which this app does not
      // read from the browser; Solana wallets top up through the API (POST /api/v1/x402/top-up) for now.
      throw new Error('Top-ups from Solana wallets are not available in the browser yet');
    },
  };
}

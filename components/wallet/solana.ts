// Solana wallets through the wallet-standard registry (what @solana/wallet-adapter-react discovers): any wallet that
// supports Solana mainnet and solana:signMessage is listed; it signs the sign-in text with Ed25519, and signs the
// top-up's USDC transfer (solana:signTransaction) that the server built for it (lib/wallet/solana-transaction.ts:
// the browser reads no chain state).
import { getWallets } from '@wallet-standard/app';
import type { Wallet, WalletAccount } from '@wallet-standard/base';
import { base58, base64 } from '@scure/base';
import { x402Client } from '@x402/core/client';
import type { WalletTopUpRequirements } from '@/lib/wire.ts';
import { SOLANA_DEVNET } from '@/lib/wallet/networks.ts';
import type { ConnectedWallet, WalletOption } from '@/components/wallet/types.ts';
import { WalletProblem } from '@/components/wallet/wallet-errors.ts';

const MAINNET = 'solana:mainnet';
type Connect = { connect(): Promise<{ accounts: readonly WalletAccount[] }> };
type SignMessage = { signMessage(...inputs: { account: WalletAccount; message: Uint8Array }[]): Promise<{ signature: Uint8Array }[]> };
type SignTransaction = {
  signTransaction(...inputs: { account: WalletAccount; transaction: Uint8Array; chain?: string }[]): Promise<{ signedTransaction: Uint8Array }[]>;
};

/** The wallet-standard chain of an x402 Solana network (CAIP-2). */
const walletChain = (network: string) => (network === SOLANA_DEVNET.network ? 'solana:devnet' : MAINNET);

/** The x402 payment for the server's requirements: the wallet signs the transaction the server built, as it stands. */
async function signServerTransaction(wallet: Wallet, account: WalletAccount, required: WalletTopUpRequirements): Promise<Record<string, unknown>> {
  const feature = wallet.features['solana:signTransaction'] as SignTransaction | undefined;
  if (!feature) throw new WalletProblem('cannotSignSolana', { wallet: wallet.name });
  const unsigned = required.transaction;
  const network = required.accepts[0]?.network;
  if (!unsigned || !network) throw new WalletProblem('noPayment');
  // The x402 client still makes the envelope (version, resource, the accepted requirement), as for any x402 payment;
  // its "exact" scheme here is only the wallet's signature over the server-built transaction.
  const client = new x402Client().register(network as `${string}:${string}`, {
    scheme: 'exact',
    async createPaymentPayload(x402Version) {
      const [out] = await feature.signTransaction({ account, transaction: base64.decode(unsigned), chain: walletChain(network) });
      return { x402Version, payload: { transaction: base64.encode(out.signedTransaction) } };
    },
  });
  // The amount was chosen and confirmed by the user in the picker; the x402 client's own $1 cap does not apply.
  client.setSpendControls(false);
  const { transaction: _, ...paymentRequired } = required;
  return (await client.createPaymentPayload(paymentRequired as never)) as unknown as Record<string, unknown>;
}

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
  const wallet = getWallets()
    .get()
    .filter(usable)
    .find((w) => w.name === option.key);
  if (!wallet) throw new WalletProblem('gone');
  const { accounts } = await (wallet.features['standard:connect'] as Connect).connect();
  const account = accounts.find((a) => a.chains.includes(MAINNET)) ?? accounts[0];
  if (!account) throw new WalletProblem('noAccount');
  return {
    chain: 'solana',
    address: account.address,
    async signMessage(message) {
      const [out] = await (wallet.features['solana:signMessage'] as SignMessage).signMessage({ account, message: new TextEncoder().encode(message) });
      return base58.encode(out.signature);
    },
    signPayment: (required) => signServerTransaction(wallet, account, required),
  };
}

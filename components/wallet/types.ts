// What the wallet UI needs from a wallet, whatever its chain.
import type { WalletChain, WalletTopUpRequirements } from '@/lib/wire.ts';

export interface WalletOption {
  /** Unique in the list. */
  id: string;
  /** Stable across page loads (EIP-6963 rdns, or the wallet-standard name): remembered to reconnect for top-ups. */
  key: string;
  name: string;
  /** A data: URL (or URL) the wallet announced. */
  icon?: string;
  chain: WalletChain;
}

export interface ConnectedWallet {
  chain: WalletChain;
  address: string;
  /** The signature over the exact text: 0x hex (EVM) or base58 (Solana). */
  signMessage(message: string): Promise<string>;
  /** The x402 payment payload for the server's requirements, signed in the wallet. */
  signPayment(required: WalletTopUpRequirements): Promise<Record<string, unknown>>;
  /** EIP-712 typed data signed in the wallet (0x hex): EVM wallets only. */
  signTypedData?(data: {
    domain: Record<string, unknown>;
    types: Record<string, unknown>;
    primaryType: string;
    message: Record<string, unknown>;
  }): Promise<string>;
}

/** The wallet last used to sign in, so the account page reconnects the same one for top-ups. */
export const REMEMBERED_WALLET = 'lagoon.wallet';

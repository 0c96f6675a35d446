// The chains and tokens wallet users pay and sign in with. USDC only: 6 decimals, so one token unit is one micro-USD
// and a top-up credits exactly its settled amount.

export const BASE_MAINNET = {
  network: 'eip155:8453',
  chainId: 8453,
  usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  usdcName: 'USD Coin',
  usdcVersion: '2',
} as const;
export const BASE_SEPOLIA = {
  network: 'eip155:84532',
  chainId: 84532,
  usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  usdcName: 'USDC',
  usdcVersion: '2',
} as const;

export const SOLANA_MAINNET = { network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', usdc: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' } as const;
export const SOLANA_DEVNET = { network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', usdc: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' } as const;

export const EVM_NETWORKS = { base: BASE_MAINNET, 'base-sepolia': BASE_SEPOLIA } as const;
export const SOLANA_NETWORKS = { mainnet: SOLANA_MAINNET, devnet: SOLANA_DEVNET } as const;

/** x402 v1 network names (and Venice's hybrid payloads) → CAIP-2. */
export const V1_NETWORK_NAMES: Record<string, string> = {
  base: BASE_MAINNET.network,
  'base-sepolia': BASE_SEPOLIA.network,
  solana: SOLANA_MAINNET.network,
  'solana-devnet': SOLANA_DEVNET.network,
};

export const USDC_DECIMALS = 6;

/** A wallet's namespace: the part of a CAIP-2 chain id before the colon. */
export type WalletNamespace = 'eip155' | 'solana';

export const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** A base58 Solana public key (32 bytes encode to 32-44 characters). */
export const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** The address as wallets are keyed: lowercase hex for EVM (case is only a checksum), exact base58 for Solana. */
export const normaliseAddress = (namespace: WalletNamespace, address: string): string => (namespace === 'eip155' ? address.toLowerCase() : address);

export function namespaceOfAddress(address: string): WalletNamespace | undefined {
  if (EVM_ADDRESS.test(address)) return 'eip155';
  if (SOLANA_ADDRESS.test(address)) return 'solana';
  return undefined;
}

// Block explorers of the networks top-ups settle on, by CAIP-2 id (a network without one, such as a local test chain, has no link).
const EXPLORER_TX: Record<string, (tx: string) => string> = {
  [BASE_MAINNET.network]: (tx) => `https://basescan.org/tx/${tx}`,
  [BASE_SEPOLIA.network]: (tx) => `https://sepolia.basescan.org/tx/${tx}`,
  [SOLANA_MAINNET.network]: (tx) => `https://solscan.io/tx/${tx}`,
  [SOLANA_DEVNET.network]: (tx) => `https://solscan.io/tx/${tx}?cluster=devnet`,
};

/** The explorer page of a settled transaction, or null for a network without a known explorer (or a malformed hash). */
export function explorerTxUrl(network: string, tx: string): string | null {
  const page = Object.hasOwn(EXPLORER_TX, network) ? EXPLORER_TX[network] : undefined;
  if (!page || !/^(0x[0-9a-fA-F]{64}|[1-9A-HJ-NP-Za-km-z]{64,90})$/.test(tx)) return null;
  return page(tx);
}

/** A network's name for people: Base, Base Sepolia, Solana, Solana devnet, or the CAIP-2 id itself. */
export function networkName(network: string): string {
  if (network === BASE_MAINNET.network) return 'Base';
  if (network === BASE_SEPOLIA.network) return 'Base Sepolia';
  if (network === SOLANA_MAINNET.network) return 'Solana';
  if (network === SOLANA_DEVNET.network) return 'Solana devnet';
  return network;
}

// The networks the JSON-RPC proxy knows: each slug's family (which method table applies, how its nodes are
// health-checked), its base credits per call, and the chain-specific method namespaces it adds. The defaults are the
// public service's 25 slugs and prices; LAGOON_RPC_TABLES can add networks or change any entry, LAGOON_RPC_BASE_CREDITS
// just the prices.
//
// Which networks a caller sees: only those with an upstream (LAGOON_RPC_UPSTREAMS). A listed network that answers
// 400 or 503 on every call would only mislead a client that picks from GET /crypto/rpc/networks, so the known table is
// where prices and methods live, and the configured upstreams decide what is served.

export type Family = 'evm' | 'solana' | 'starknet';
export const FAMILIES: readonly Family[] = ['evm', 'solana', 'starknet'];

export interface NetworkSpec {
  family: Family;
  /** Credits of one standard call; a tier multiplies it. */
  baseCredits: number;
  /** Method sets this network adds to its family's (e.g. `zksync` for `zks_*`), by name in the method tables. */
  extensions: string[];
}

/** A network slug: lowercase words joined by hyphens (also keeps path tricks and prototype names out). */
export const NETWORK_SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** The call a health check makes: cheap, answered by every node of the family, and an error when the node is unwell. */
export const HEALTH_METHOD: Record<Family, string> = { evm: 'eth_chainId', solana: 'getHealth', starknet: 'starknet_chainId' };

const evm = (baseCredits: number, ...extensions: string[]): NetworkSpec => ({ family: 'evm', baseCredits, extensions });

export const DEFAULT_NETWORKS: Record<string, NetworkSpec> = {
  'arbitrum-mainnet': evm(20, 'arbitrum'),
  'arbitrum-sepolia': evm(20, 'arbitrum'),
  'avalanche-fuji': evm(20),
  'avalanche-mainnet': evm(20),
  'base-mainnet': evm(20),
  'base-sepolia': evm(20),
  'bsc-mainnet': evm(20),
  'bsc-testnet': evm(20),
  'ethereum-holesky': evm(20),
  'ethereum-mainnet': evm(20),
  'ethereum-sepolia': evm(20),
  'linea-mainnet': evm(20, 'linea'),
  'linea-sepolia': evm(20, 'linea'),
  'optimism-mainnet': evm(20),
  'optimism-sepolia': evm(20),
  'polygon-amoy': evm(20, 'polygon'),
  'polygon-mainnet': evm(20, 'polygon'),
  // Robinhood Chain is an Arbitrum Orbit chain: its nodes answer the arbtrace_* namespace too.
  'robinhood-mainnet': evm(20, 'arbitrum'),
  'robinhood-testnet': evm(20, 'arbitrum'),
  'solana-devnet': { family: 'solana', baseCredits: 30, extensions: [] },
  'solana-mainnet': { family: 'solana', baseCredits: 30, extensions: [] },
  'starknet-mainnet': { family: 'starknet', baseCredits: 20, extensions: [] },
  'starknet-sepolia': { family: 'starknet', baseCredits: 20, extensions: [] },
  'zksync-mainnet': evm(30, 'zksync'),
  'zksync-sepolia': evm(30, 'zksync'),
};

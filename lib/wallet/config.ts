// Wallet settings: where SIWX messages must be bound (the public origin), and the x402 rails (Base, Solana) with
// their recipients, RPC endpoints and facilitator. lib/config.ts reads the variables with the parsers below; a rail
// is offered only when it is fully configured; payment requirements are built from these values alone, never from
// anything a client sends.
import { createRequire } from 'node:module';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { EVM_NETWORKS, SOLANA_ADDRESS, SOLANA_NETWORKS } from './networks.ts';

export interface EvmRail {
  network: string;
  chainId: number;
  asset: string;
  /** The token's EIP-712 domain (the `extra` of an exact EVM requirement). */
  assetName: string;
  assetVersion: string;
  payTo: string;
  /** Base RPC: settlement by the in-process facilitator, and ERC-1271 / ERC-6492 smart-wallet sign-in. */
  rpcUrl: string | undefined;
  /** The in-process facilitator's hot wallet (pays the gas of transferWithAuthorization). */
  facilitatorKey: `0x${string}` | undefined;
  /**
   * Whether chat paid on the spot is offered under x402's own `upto` scheme here (Permit2 and x402's upto proxy, which
   * must be deployed on this chain): the payer authorises the cap and only what was used is settled. Otherwise `upto`
   * is authorised as an exact payment of the cap (lib/wallet/per-request.ts).
   */
  uptoPermit2: boolean;
}

export interface SolanaRail {
  network: string;
  asset: string;
  payTo: string;
  rpcUrl: string | undefined;
  /** The in-process facilitator's fee payer: a 64-byte Ed25519 secret key (seed + public key). */
  feePayerKey: Uint8Array | undefined;
}

export interface WalletConfig {
  /** Origin the service is reached at by wallet users; SIWX domain and URI must match it. */
  publicOrigin: string;
  siwx: { maxAgeMs: number; nonceTtlMs: number; statement: string };
  /** Chains wallets may sign in with (always both; EVM smart wallets need evm.rpcUrl). */
  evm: EvmRail;
  solana: SolanaRail;
  /** A remote facilitator (verify/settle over HTTP) instead of the in-process one. */
  facilitatorUrl: string | undefined;
  /** Micro-USD (= USDC units). */
  minTopUp: number;
  maxTopUp: number;
  /** Suggested top-up in 402 bodies. */
  suggestedTopUp: number;
  /** How long a signed payment authorization should stay valid. */
  maxTimeoutSeconds: number;
  /**
   * x402 per request (lib/wallet/per-request.ts): a chat or image request without credentials is paid on the spot.
   * maxAmount: the most one such payment may be (micro-USD).
   */
  perRequest: { enabled: boolean; maxAmount: number };
  /**
   * How long an x402_topups claim may go untouched before its attempt is taken for dead (ms): a top-up's claim may then
   * be taken over; an `upto` claim is never taken over but finished by the recovery sweep (upto-recovery.ts).
   */
  staleClaimMs: number;
  /** Rails that are fully configured, in the order they are offered. */
  rails: { evm: boolean; solana: boolean };
}

const MIN_TOP_UP_USD = 5;

// Parsers of single settings. Each takes the trimmed, non-empty raw value and throws a reason that reads after the
// variable's name ("… must be …"); lib/config.ts names the variable.

export function parseEvmNetwork(raw: string): (typeof EVM_NETWORKS)[keyof typeof EVM_NETWORKS] {
  const preset = EVM_NETWORKS[raw as keyof typeof EVM_NETWORKS];
  if (!preset) throw new Error(`must be one of ${Object.keys(EVM_NETWORKS).join(', ')}, got "${raw}"`);
  return preset;
}

/** LAGOON_X402_UPTO_NETWORKS: EVM network names (EVM_NETWORKS), comma-separated; `none` for none. */
export function parseUptoNetworks(raw: string): string[] {
  if (raw === 'none') return [];
  const names = raw.split(',').map((n) => n.trim());
  const unknown = names.find((n) => !Object.hasOwn(EVM_NETWORKS, n));
  if (unknown !== undefined) throw new Error(`must be \`none\` or a comma-separated list of ${Object.keys(EVM_NETWORKS).join(', ')}, got "${unknown}"`);
  return names.map((n) => EVM_NETWORKS[n as keyof typeof EVM_NETWORKS].network);
}

export function parseSolanaNetwork(raw: string): (typeof SOLANA_NETWORKS)[keyof typeof SOLANA_NETWORKS] {
  const preset = SOLANA_NETWORKS[raw as keyof typeof SOLANA_NETWORKS];
  if (!preset) throw new Error(`must be one of ${Object.keys(SOLANA_NETWORKS).join(', ')}, got "${raw}"`);
  return preset;
}

// viem is loaded only when an EVM address is configured: every process reads the configuration (the CLI too), and
// loading viem's module graph costs about a quarter of a second. Required synchronously, since parsers are sync.
const requireViemUtils = (): typeof import('viem/utils') => createRequire(import.meta.url)('viem/utils');

export function parseEvmAddress(raw: string): string {
  const { isAddress } = requireViemUtils();
  if (!isAddress(raw)) throw new Error('must be an EVM address (0x + 40 hex digits, valid checksum if mixed case)');
  return raw;
}

export function parseEvmKey(raw: string): `0x${string}` {
  if (!/^0x[0-9a-fA-F]{64}$/.test(raw)) throw new Error('must be a 32-byte private key in hex (0x + 64 hex digits)');
  return raw as `0x${string}`;
}

export function parseSolanaAddress(raw: string): string {
  let ok = SOLANA_ADDRESS.test(raw);
  if (ok) ok = base58.decode(raw).length === 32;
  if (!ok) throw new Error('must be a base58 Solana address');
  return raw;
}

export function parseSolanaSecretKey(raw: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    // The Solana CLI's keypair file format (a JSON array of 64 numbers), or the same bytes in base58.
    bytes = raw.startsWith('[') ? Uint8Array.from(JSON.parse(raw) as number[]) : base58.decode(raw);
  } catch {
    throw new Error('must be a 64-byte secret key as base58 or a JSON array');
  }
  if (bytes.length !== 64) throw new Error(`must be 64 bytes, got ${bytes.length}`);
  // The second half is the public key of the first: a mismatch is a corrupted key, not a key to sign with.
  const derived = ed25519.getPublicKey(bytes.slice(0, 32));
  if (!derived.every((b, i) => b === bytes[32 + i])) throw new Error('has a public half that does not belong to its secret half');
  return bytes;
}

/** The most a single top-up may credit, in USD. */
export function parseMaxTopUpUsd(raw: string): number {
  const usd = Number(raw);
  // The upper bound keeps every amount an exact integer of micro-USD in a JavaScript number.
  if (!Number.isFinite(usd) || usd < MIN_TOP_UP_USD || usd > 1e9) throw new Error(`must be a number of USD from ${MIN_TOP_UP_USD} to 1e9, got "${raw}"`);
  return usd;
}

/** The most one request paid on the spot may cost, in USD. */
export function parsePerRequestMaxUsd(raw: string): number {
  const usd = Number(raw);
  if (!Number.isFinite(usd) || usd < 0.000001 || usd > 1e6) throw new Error(`must be a number of USD from 0.000001 to 1e6, got "${raw}"`);
  return usd;
}

/** The wallet settings, each parsed on its own (lib/config.ts). */
export interface WalletSettings {
  /** An http(s) URL; undefined: http://localhost:<port>. */
  publicUrl: string | undefined;
  evmNetwork: (typeof EVM_NETWORKS)[keyof typeof EVM_NETWORKS];
  solanaNetwork: (typeof SOLANA_NETWORKS)[keyof typeof SOLANA_NETWORKS];
  evmPayTo: string | undefined;
  evmRpcUrl: string | undefined;
  evmFacilitatorKey: `0x${string}` | undefined;
  solanaPayTo: string | undefined;
  solanaRpcUrl: string | undefined;
  solanaFeePayerKey: Uint8Array | undefined;
  facilitatorUrl: string | undefined;
  maxTopUpUsd: number;
  perRequest: boolean;
  perRequestMaxUsd: number;
  /** CAIP-2 ids of the EVM networks where x402's upto contracts are used (EvmRail.uptoPermit2). */
  uptoNetworks: string[];
  /** LAGOON_X402_STALE_CLAIM_MS (WalletConfig.staleClaimMs). */
  staleClaimMs: number;
  siwxMaxAgeSeconds: number;
  siwxStatement: string;
}

/** The wallet configuration from its parsed settings; a half-configured rail throws, naming the variable. */
export function walletConfigOf(s: WalletSettings, port: number): WalletConfig {
  const evm: EvmRail = {
    network: s.evmNetwork.network,
    chainId: s.evmNetwork.chainId,
    asset: s.evmNetwork.usdc,
    assetName: s.evmNetwork.usdcName,
    assetVersion: s.evmNetwork.usdcVersion,
    payTo: s.evmPayTo ?? '',
    rpcUrl: s.evmRpcUrl,
    facilitatorKey: s.evmFacilitatorKey,
    uptoPermit2: s.uptoNetworks.includes(s.evmNetwork.network),
  };
  const solana: SolanaRail = {
    network: s.solanaNetwork.network,
    asset: s.solanaNetwork.usdc,
    payTo: s.solanaPayTo ?? '',
    rpcUrl: s.solanaRpcUrl,
    feePayerKey: s.solanaFeePayerKey,
  };
  // A recipient without a way to settle is a half-configured rail: refuse to start rather than offer it.
  const evmSettles = s.facilitatorUrl !== undefined || (evm.facilitatorKey !== undefined && evm.rpcUrl !== undefined);
  const solSettles = s.facilitatorUrl !== undefined || (solana.feePayerKey !== undefined && solana.rpcUrl !== undefined);
  if (s.evmPayTo && !evmSettles)
    throw new Error('LAGOON_X402_BASE_PAY_TO needs LAGOON_X402_FACILITATOR_URL, or LAGOON_X402_BASE_RPC_URL and LAGOON_X402_BASE_FACILITATOR_KEY');
  if (s.solanaPayTo && !solSettles)
    throw new Error('LAGOON_X402_SOLANA_PAY_TO needs LAGOON_X402_FACILITATOR_URL, or LAGOON_X402_SOLANA_RPC_URL and LAGOON_X402_SOLANA_FEE_PAYER_KEY');

  return {
    publicOrigin: s.publicUrl ? new URL(s.publicUrl).origin : `http://localhost:${port}`,
    siwx: { maxAgeMs: s.siwxMaxAgeSeconds * 1000, nonceTtlMs: s.siwxMaxAgeSeconds * 1000, statement: s.siwxStatement },
    evm,
    solana,
    facilitatorUrl: s.facilitatorUrl,
    minTopUp: MIN_TOP_UP_USD * 1_000_000,
    maxTopUp: Math.round(s.maxTopUpUsd * 1_000_000),
    suggestedTopUp: Math.min(10_000_000, Math.round(s.maxTopUpUsd * 1_000_000)),
    maxTimeoutSeconds: 300,
    perRequest: { enabled: s.perRequest, maxAmount: Math.round(s.perRequestMaxUsd * 1_000_000) },
    staleClaimMs: s.staleClaimMs,
    rails: { evm: Boolean(s.evmPayTo), solana: Boolean(s.solanaPayTo) },
  };
}

// Wallet settings from the environment: where SIWX messages must be bound (the public origin), and the x402 rails
// (Base, Solana) with their recipients, RPC endpoints and facilitator. A rail is offered only when it is fully
// configured; payment requirements are built from these values alone, never from anything a client sends.
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { isAddress } from 'viem';
import type { Env } from '../config.ts';
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
  /** Rails that are fully configured, in the order they are offered. */
  rails: { evm: boolean; solana: boolean };
}

const MIN_TOP_UP_USD = 5;

function fail(name: string, why: string): never {
  throw new Error(`${name}: ${why}`);
}

function urlEnv(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail(name, `not a URL: "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(name, 'must be an http(s) URL');
  return raw;
}

function publicOriginOf(env: Env, port: number): string {
  const raw = env.LAGOON_PUBLIC_URL?.trim();
  if (!raw) return `http://localhost:${port}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail('LAGOON_PUBLIC_URL', `not a URL: "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail('LAGOON_PUBLIC_URL', 'must be an http(s) URL');
  return url.origin;
}

function solanaSecretKey(name: string, raw: string | undefined): Uint8Array | undefined {
  if (!raw?.trim()) return undefined;
  const text = raw.trim();
  let bytes: Uint8Array;
  try {
    // The Solana CLI's keypair file format (a JSON array of 64 numbers), or the same bytes in base58.
    bytes = text.startsWith('[') ? Uint8Array.from(JSON.parse(text) as number[]) : base58.decode(text);
  } catch {
    fail(name, 'must be a 64-byte secret key as base58 or a JSON array');
  }
  if (bytes.length !== 64) fail(name, `must be 64 bytes, got ${bytes.length}`);
  // The second half is the public key of the first: a mismatch is a corrupted key, not a key to sign with.
  const derived = ed25519.getPublicKey(bytes.slice(0, 32));
  if (!derived.every((b, i) => b === bytes[32 + i])) fail(name, 'its public half does not belong to its secret half');
  return bytes;
}

function secondsEnv(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) fail(name, `must be a positive whole number of seconds, got "${raw}"`);
  return n;
}

export function loadWalletConfig(env: Env, port: number): WalletConfig {
  const evmName = env.LAGOON_X402_BASE_NETWORK || 'base';
  const evmPreset = EVM_NETWORKS[evmName as keyof typeof EVM_NETWORKS] ?? fail('LAGOON_X402_BASE_NETWORK', `must be one of ${Object.keys(EVM_NETWORKS).join(', ')}`);
  const solName = env.LAGOON_X402_SOLANA_NETWORK || 'mainnet';
  const solPreset = SOLANA_NETWORKS[solName as keyof typeof SOLANA_NETWORKS] ?? fail('LAGOON_X402_SOLANA_NETWORK', `must be one of ${Object.keys(SOLANA_NETWORKS).join(', ')}`);

  const evmPayTo = env.LAGOON_X402_BASE_PAY_TO?.trim() || undefined;
  if (evmPayTo && !isAddress(evmPayTo)) fail('LAGOON_X402_BASE_PAY_TO', 'must be an EVM address (0x + 40 hex digits, valid checksum if mixed case)');
  const evmKey = env.LAGOON_X402_BASE_FACILITATOR_KEY?.trim() || undefined;
  if (evmKey && !/^0x[0-9a-fA-F]{64}$/.test(evmKey)) fail('LAGOON_X402_BASE_FACILITATOR_KEY', 'must be a 32-byte private key in hex (0x + 64 hex digits)');
  const solPayTo = env.LAGOON_X402_SOLANA_PAY_TO?.trim() || undefined;
  if (solPayTo && (!SOLANA_ADDRESS.test(solPayTo) || base58.decode(solPayTo).length !== 32)) fail('LAGOON_X402_SOLANA_PAY_TO', 'must be a base58 Solana address');

  const facilitatorUrl = urlEnv(env, 'LAGOON_X402_FACILITATOR_URL');
  const evm: EvmRail = {
    network: evmPreset.network,
    chainId: evmPreset.chainId,
    asset: evmPreset.usdc,
    assetName: evmPreset.usdcName,
    assetVersion: evmPreset.usdcVersion,
    payTo: evmPayTo ?? '',
    rpcUrl: urlEnv(env, 'LAGOON_X402_BASE_RPC_URL'),
    facilitatorKey: evmKey as `0x${string}` | undefined,
  };
  const solana: SolanaRail = {
    network: solPreset.network,
    asset: solPreset.usdc,
    payTo: solPayTo ?? '',
    rpcUrl: urlEnv(env, 'LAGOON_X402_SOLANA_RPC_URL'),
    feePayerKey: solanaSecretKey('LAGOON_X402_SOLANA_FEE_PAYER_KEY', env.LAGOON_X402_SOLANA_FEE_PAYER_KEY),
  };
  // A recipient without a way to settle is a half-configured rail: refuse to start rather than offer it.
  const evmSettles = facilitatorUrl !== undefined || (evm.facilitatorKey !== undefined && evm.rpcUrl !== undefined);
  const solSettles = facilitatorUrl !== undefined || (solana.feePayerKey !== undefined && solana.rpcUrl !== undefined);
  if (evmPayTo && !evmSettles) fail('LAGOON_X402_BASE_PAY_TO', 'needs LAGOON_X402_FACILITATOR_URL, or LAGOON_X402_BASE_RPC_URL and LAGOON_X402_BASE_FACILITATOR_KEY');
  if (solPayTo && !solSettles) fail('LAGOON_X402_SOLANA_PAY_TO', 'needs LAGOON_X402_FACILITATOR_URL, or LAGOON_X402_SOLANA_RPC_URL and LAGOON_X402_SOLANA_FEE_PAYER_KEY');

  const maxUsd = Number(env.LAGOON_X402_MAX_TOPUP_USD || 10_000);
  // The upper bound keeps every amount an exact integer of micro-USD in a JavaScript number.
  if (!Number.isFinite(maxUsd) || maxUsd < MIN_TOP_UP_USD || maxUsd > 1e9) fail('LAGOON_X402_MAX_TOPUP_USD', `must be a number of USD from ${MIN_TOP_UP_USD} to 1e9`);
  const maxAgeS = secondsEnv(env, 'LAGOON_SIWX_MAX_AGE_SECONDS', 300);
  return {
    publicOrigin: publicOriginOf(env, port),
    siwx: { maxAgeMs: maxAgeS * 1000, nonceTtlMs: maxAgeS * 1000, statement: env.LAGOON_SIWX_STATEMENT?.trim() || 'Sign in to Lagoon' },
    evm,
    solana,
    facilitatorUrl,
    minTopUp: MIN_TOP_UP_USD * 1_000_000,
    maxTopUp: Math.round(maxUsd * 1_000_000),
    suggestedTopUp: Math.min(10_000_000, Math.round(maxUsd * 1_000_000)),
    maxTimeoutSeconds: 300,
    rails: { evm: Boolean(evmPayTo), solana: Boolean(solPayTo) },
  };
}

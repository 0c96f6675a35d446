// Sign-In-With-X: a signed header in place of a bearer key. Checked in this order, cheapest first: the payload's
// shape; chain, domain and URI binding (to the configured public origin, never the request's Host header); time
// bounds; the signature; and last the nonce, which is consumed only by a request that passed everything else.
import { isAddress } from 'viem';
import { ApiError } from '../api/errors.ts';
import type { Principal } from '../auth/keys.ts';
import type { Store } from '../db/store.ts';
import type { WalletConfig } from './config.ts';
import { EVM_ADDRESS, normaliseAddress } from './networks.ts';
import { consumeNonce, NONCE_PATTERN } from './nonces.ts';
import { readSignInHeader, type SignInClaim } from './siwx-payload.ts';
import { solanaPublicKey, verifyEvmSignature, verifySolanaSignature } from './signatures.ts';
import { ensureWallet, type Wallet, walletPrincipal } from './wallets.ts';

/** Clock difference tolerated between a client's (or another instance's) clock and ours. */
const SKEW_MS = 30_000;
/** Legacy payloads carry the time the client made them; it must agree with the message's Issued At. */
const TIMESTAMP_TOLERANCE_MS = 30_000;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export interface SignedIn {
  wallet: Wallet;
  principal: Principal;
  claim: SignInClaim;
}

/** Chains wallets may sign in with, as CAIP-2 ids. */
export const signInChains = (cfg: WalletConfig): string[] => [cfg.evm.network, cfg.solana.network];

function time(value: string, field: string): number {
  const t = ISO_TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(t)) throw new ApiError('X402_SIGN_IN_INVALID_PAYLOAD', `The Sign-In-With-X payload is invalid: ${field} must be an ISO 8601 time`);
  return t;
}

/** Every check that needs neither the network nor the database. */
export function checkClaim(claim: SignInClaim, cfg: WalletConfig, now = Date.now()): void {
  const f = claim.fields;
  if (!signInChains(cfg).includes(claim.chainId)) {
    throw new ApiError('X402_SIGN_IN_UNSUPPORTED_CHAIN', `Sign-In-With-X is accepted for ${signInChains(cfg).join(' and ')}, not ${claim.chainId}`);
  }
  if (f.version !== '1') throw new ApiError('X402_SIGN_IN_INVALID_PAYLOAD', 'The Sign-In-With-X payload is invalid: version must be "1"');
  const addressOk = claim.namespace === 'eip155' ? EVM_ADDRESS.test(claim.address) && isAddress(claim.address) : solanaPublicKey(claim.address) !== undefined;
  if (!addressOk) throw new ApiError('X402_SIGN_IN_INVALID_PAYLOAD', `The Sign-In-With-X payload is invalid: ${claim.address} is not a valid address`);
  if (!NONCE_PATTERN.test(f.nonce))
    throw new ApiError('X402_SIGN_IN_INVALID_PAYLOAD', 'The Sign-In-With-X payload is invalid: the nonce must be 8-64 letters and digits');
  const origin = new URL(cfg.publicOrigin);
  let uriOrigin: string | undefined;
  try {
    uriOrigin = new URL(f.uri).origin;
  } catch {
    uriOrigin = undefined;
  }
  if (f.domain !== origin.host || uriOrigin !== origin.origin) {
    throw new ApiError('X402_SIGN_IN_DOMAIN_MISMATCH', `The message must be signed for ${origin.host} (URI on ${origin.origin})`);
  }
  const issuedAt = time(f.issuedAt, 'issuedAt');
  if (issuedAt > now + SKEW_MS) throw new ApiError('X402_SIGN_IN_FUTURE_TIMESTAMP');
  if (now - issuedAt > cfg.siwx.maxAgeMs)
    throw new ApiError('X402_SIGN_IN_EXPIRED', `The message was issued more than ${cfg.siwx.maxAgeMs / 1000}s ago: sign a fresh challenge`);
  if (f.expirationTime !== undefined && time(f.expirationTime, 'expirationTime') <= now) throw new ApiError('X402_SIGN_IN_EXPIRED');
  if (f.notBefore !== undefined && time(f.notBefore, 'notBefore') > now + SKEW_MS) throw new ApiError('X402_SIGN_IN_NOT_BEFORE');
  if (claim.timestamp !== undefined && Math.abs(claim.timestamp - issuedAt) > TIMESTAMP_TOLERANCE_MS) throw new ApiError('X402_SIGN_IN_TIMESTAMP_MISMATCH');
}

export async function verifyClaimSignature(claim: SignInClaim, cfg: WalletConfig): Promise<boolean> {
  if (claim.namespace === 'eip155') return verifyEvmSignature(claim.address, claim.message, claim.signature, cfg.evm.rpcUrl);
  // The x402 form writes Solana signatures in base58; legacy clients use base58 or base64.
  return verifySolanaSignature(claim.address, claim.message, claim.signature, claim.form === 'legacy' ? ['base58', 'base64'] : ['base58']);
}

/**
 * Verifies a SIGN-IN-WITH-X header and consumes its nonce: the proof that the signer holds the wallet, creating
 * nothing (linking a wallet to a signed-in user, lib/users/wallet-link.ts, starts here).
 */
export async function verifySignIn(store: Store, cfg: WalletConfig, header: string, now = Date.now()): Promise<SignInClaim> {
  const claim = readSignInHeader(header);
  checkClaim(claim, cfg, now);
  if (!(await verifyClaimSignature(claim, cfg))) throw new ApiError('X402_SIGN_IN_INVALID_SIGNATURE');
  // Legacy clients choose their nonce; it is remembered for as long as a message carrying it could still pass.
  const clientChosenUntil = claim.form === 'legacy' ? now + cfg.siwx.maxAgeMs + 2 * SKEW_MS : undefined;
  const outcome = await consumeNonce(store, claim.fields.nonce, normaliseAddress(claim.namespace, claim.address), { clientChosenUntil }, now);
  if (outcome === 'reused') throw new ApiError('X402_SIGN_IN_NONCE_REUSED');
  if (outcome === 'expired') throw new ApiError('X402_SIGN_IN_EXPIRED', 'The challenge nonce has expired: sign a fresh challenge');
  if (outcome === 'unknown') throw new ApiError('X402_SIGN_IN_INVALID_NONCE');
  return claim;
}

/** Verifies a SIGN-IN-WITH-X header and consumes its nonce; the wallet (made on first use) and the principal it acts as. */
export async function signIn(store: Store, cfg: WalletConfig, header: string, now = Date.now()): Promise<SignedIn> {
  const claim = await verifySignIn(store, cfg, header, now);
  const wallet = await ensureWallet(store, claim.namespace, claim.address, now);
  return { wallet, principal: await walletPrincipal(store, wallet, now), claim };
}

// Web3 API keys: a wallet proves itself once by signing a server token and receives an ordinary API key on the
// wallet's own account (the one its sign-ins and top-ups use), so wallet users can call the API with a bearer key.
//
// The token is a JWT (HS256 under a server secret shared by every instance, lib/auth/server-secret.ts) that lives 15
// minutes; its `jti` is a server nonce in the same single-use store as Sign-In-With-X (nonces.ts), consumed when a key
// is made, so a token (and a signature over it) buys one key. The wallet signs the raw token text: EIP-191
// personal_sign for EVM wallets (smart wallets through the Base RPC), Ed25519 for Solana, checked by the sign-in
// verifiers (signatures.ts).
import { ApiError } from '../api/errors.ts';
import { sign, verify } from '../auth/server-secret.ts';
import type { Store } from '../db/store.ts';
import type { WalletConfig } from './config.ts';
import { namespaceOfAddress } from './networks.ts';
import { consumeNonce, issueNonce } from './nonces.ts';
import { verifyEvmSignature, verifySolanaSignature } from './signatures.ts';
import { ensureWallet, type Wallet, walletPrincipal } from './wallets.ts';

export const WEB3_TOKEN_TTL_MS = 15 * 60_000;
const SECRET = 'web3-key-token';
const PURPOSE = 'generate_web3_key';
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

const bad = (message: string, param = 'token') => new ApiError('INVALID_REQUEST', message, { param });

/** A fresh token to sign (GET /api_keys/generate_web3_key). */
export async function issueWeb3Token(store: Store, now = Date.now()): Promise<{ token: string; expiresAt: number }> {
  const { nonce, expiresAt } = await issueNonce(store, WEB3_TOKEN_TTL_MS, now);
  const claims = { jti: nonce, sub: PURPOSE, iat: Math.floor(now / 1000), exp: Math.floor(expiresAt / 1000) };
  const body = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return { token: `${body}.${await sign(store, SECRET, body)}`, expiresAt };
}

/** The token's nonce, once its form, signature, purpose and expiry are checked (400 naming what is wrong). */
async function tokenNonce(store: Store, token: string, now: number): Promise<string> {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) throw bad('JWT is malformed');
  if (!(await verify(store, SECRET, `${parts[0]}.${parts[1]}`, parts[2]))) throw bad('JWT signature is invalid');
  let claims: { jti?: unknown; sub?: unknown; exp?: unknown };
  try {
    claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    throw bad('JWT is malformed');
  }
  if (claims.sub !== PURPOSE || typeof claims.jti !== 'string' || typeof claims.exp !== 'number') throw bad('JWT claims are invalid');
  if (claims.exp * 1000 <= now) throw bad('JWT has expired');
  return claims.jti;
}

/**
 * The wallet that signed `token`, its nonce consumed (the caller then makes the key on `wallet.accountId`). The
 * signature is checked before the nonce is spent, so a wrong signature does not burn the token.
 */
export async function redeemWeb3Token(
  store: Store,
  cfg: WalletConfig,
  input: { address: string; signature: string; token: string },
  now = Date.now(),
): Promise<Wallet> {
  const namespace = namespaceOfAddress(input.address);
  if (!namespace) throw bad('Invalid wallet address', 'address');
  const nonce = await tokenNonce(store, input.token, now);
  const signed =
    namespace === 'eip155'
      ? await verifyEvmSignature(input.address, input.token, input.signature, cfg.evm.rpcUrl)
      : verifySolanaSignature(input.address, input.token, input.signature, ['base58', 'base64']);
  if (!signed) throw bad('Wallet signature does not match', 'signature');
  const outcome = await consumeNonce(store, nonce, input.address, {}, now);
  if (outcome === 'reused') throw bad('JWT has already been used: request a new token');
  if (outcome !== 'ok') throw bad('JWT has expired');
  const wallet = await ensureWallet(store, namespace, input.address, now);
  // A wallet the operator shut out (its sign-in key revoked, or its account disabled) gets no key either.
  await walletPrincipal(store, wallet, now);
  return wallet;
}

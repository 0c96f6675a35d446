// Signature checks for sign-in messages.
// - EVM: plain ECDSA recovery first (EOAs, no network); otherwise, when a Base RPC is configured, viem's universal
//   validator as an eth_call, which covers deployed smart wallets (ERC-1271) and counterfactual ones (ERC-6492).
// - Solana: Ed25519 verified strictly (RFC 8032, not ZIP-215), with small-order public keys refused outright:
//   lenient verifiers (tweetnacl, noble's default, WebCrypto) accept a forged signature under such a key for any
//   message.
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58, base64 } from '@scure/base';
import { createPublicClient, http, isHex, type PublicClient, verifyMessage } from 'viem';
import { log } from '../log.ts';

/** viem public clients per RPC URL (one connection pool each). */
const clients = new Map<string, PublicClient>();

export function publicClientFor(rpcUrl: string): PublicClient {
  let c = clients.get(rpcUrl);
  if (!c) {
    c = createPublicClient({ transport: http(rpcUrl, { timeout: 8_000, retryCount: 1 }) });
    clients.set(rpcUrl, c);
  }
  return c;
}

export async function verifyEvmSignature(address: string, message: string, signature: string, rpcUrl: string | undefined): Promise<boolean> {
  if (!isHex(signature) || signature.length < 132 || signature.length > 20_000) return false;
  const addr = address as `0x${string}`;
  try {
    if (await verifyMessage({ address: addr, message, signature })) return true;
  } catch {
    // Not an ECDSA signature (a smart wallet's); the RPC check below decides.
  }
  if (!rpcUrl) return false;
  try {
    return await publicClientFor(rpcUrl).verifyMessage({ address: addr, message, signature });
  } catch (e) {
    log.warn(`siwx: smart-wallet signature check for ${address} failed: ${(e as Error).message.split('\n')[0]}`);
    return false;
  }
}

/** A Solana public key (base58) that is a valid curve point of full order, or undefined. */
export function solanaPublicKey(address: string): Uint8Array | undefined {
  let pk: Uint8Array;
  try {
    pk = base58.decode(address);
  } catch {
    return undefined;
  }
  if (pk.length !== 32) return undefined;
  try {
    if (ed25519.Point.fromBytes(pk).isSmallOrder()) return undefined;
  } catch {
    return undefined;
  }
  return pk;
}

/** Ed25519 over the UTF-8 text. `encodings`: how the signature may be written (base58; legacy clients also base64). */
export function verifySolanaSignature(address: string, message: string, signature: string, encodings: readonly ('base58' | 'base64')[] = ['base58']): boolean {
  const pk = solanaPublicKey(address);
  if (!pk) return false;
  const bytes = new TextEncoder().encode(message);
  for (const enc of encodings) {
    let sig: Uint8Array;
    try {
      sig = enc === 'base58' ? base58.decode(signature) : base64.decode(signature);
    } catch {
      continue;
    }
    if (sig.length !== 64) continue;
    try {
      if (ed25519.verify(sig, bytes, pk, { zip215: false })) return true;
    } catch {
      // Non-canonical encodings throw in strict mode: invalid.
    }
  }
  return false;
}

// What the worker's key signs, and how anyone checks it: EIP-191 personal messages with the attested secp256k1 key,
// so a client recovers the signer from a response signature and compares it with the attested `signing_address`.
import { bytesToHex, recoverMessageAddress } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { privateKeyToAccount } from 'viem/accounts';
import { createHash } from 'node:crypto';

export const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/** The Ethereum-style address of an uncompressed public key (the last 20 bytes of keccak256(x ‖ y)). */
export const addressOf = (publicKey: Uint8Array): `0x${string}` => publicKeyToAddress(bytesToHex(publicKey));

/** A 65-byte EIP-191 signature of `text` (hex, 0x-prefixed). */
export function signText(secretKey: Uint8Array, text: string): Promise<`0x${string}`> {
  return privateKeyToAccount(bytesToHex(secretKey)).signMessage({ message: text });
}

/** Whether `signature` over `text` was made by `address`. */
export async function signedBy(address: string, text: string, signature: string): Promise<boolean> {
  try {
    const signer = await recoverMessageAddress({ message: text, signature: signature as `0x${string}` });
    return signer.toLowerCase() === address.toLowerCase();
  } catch {
    return false;
  }
}

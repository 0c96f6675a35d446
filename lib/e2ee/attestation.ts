// The attestation a worker gives for its current key. Without a hardware TEE it says so: `verified: false`,
// `tee_provider: "none"`, no quote; it still echoes the nonce and signs it, which proves only that the worker holds
// the key now. A quote provider (dstack/TDX, SEV-SNP) plugs in behind QuoteProvider and gets REPORTDATA in the public
// layout: signing address (20 bytes) ‖ zeros (12) ‖ nonce (32).
import { addressOf, signText } from './signing.ts';

export interface Evidence {
  /** The TEE's quote (hex), when one exists. */
  intel_quote: string | null;
  /** NVIDIA GPU evidence (a JSON string), when one exists. */
  nvidia_payload: string | null;
}

export interface QuoteProvider {
  /** `tee_provider` in the answer. */
  readonly name: string;
  /** The quote over `reportData` (64 bytes); a provider that cannot quote throws. */
  evidence(reportData: Uint8Array): Promise<Evidence>;
}

/** REPORTDATA as the public clients check it: address ‖ 12 zero bytes ‖ nonce. */
export function reportData(address: string, nonce: Uint8Array): Uint8Array {
  const out = new Uint8Array(64);
  out.set(Buffer.from(address.slice(2), 'hex'), 0);
  out.set(nonce, 32);
  return out;
}

export const NONCE_HEX = /^[0-9a-fA-F]{64}$/;

/** The text the worker signs to show it holds the attested key for this nonce and model. */
export const keyProofText = (nonce: string, model: string): string => `lagoon-e2ee-attestation:${nonce.toLowerCase()}:${model}`;

export async function attestationBody(
  key: { secretKey: Uint8Array; publicKey: Uint8Array },
  model: string,
  nonce: string,
  provider: QuoteProvider | undefined,
): Promise<Record<string, unknown>> {
  const address = addressOf(key.publicKey);
  const evidence = provider ? await provider.evidence(reportData(address, Buffer.from(nonce, 'hex'))) : { intel_quote: null, nvidia_payload: null };
  return {
    // Only a quote a verifier checked could make this true; no provider runs here, so nothing was verified.
    verified: false,
    nonce: nonce.toLowerCase(),
    model,
    tee_provider: provider?.name ?? 'none',
    signing_key: Buffer.from(key.publicKey).toString('hex'),
    signing_address: address,
    signing_algo: 'ecdsa',
    ...evidence,
    key_proof: await signText(key.secretKey, keyProofText(nonce, model)),
  };
}

// Wallet-side helpers for the wallet tests: the server settings that point Lagoon at the local chains, and signed
// SIGN-IN-WITH-X headers made the way real clients make them (the published x402 SDK for the x402 form, viem's
// EIP-4361 implementation for the legacy form).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createKeyPairSignerFromPrivateKeyBytes, type KeyPairSigner } from '@solana/kit';
import { createSIWxMessage, createSIWxPayload, encodeSIWxHeader, type SIWxExtensionInfo } from '@x402/extensions/sign-in-with-x';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client';
import { type Hex, type LocalAccount, toHex } from 'viem';
import { BASE_MAINNET } from '../../lib/wallet/networks.ts';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519.js';
import type { Harness } from '../support/harness.ts';
import { type Anvil, FACILITATOR_KEY } from '../support/chains/anvil.ts';
import type { Solana } from '../support/chains/solana.ts';

export const PUBLIC_URL = 'https://lagoon.test';
export const BASE_PAY_TO = privateKeyToAccount(generatePrivateKey()).address;

/** Server environment for wallets on the local chains (either may be left out). */
export function walletEnv(chains: { anvil?: Anvil; solana?: Solana; solanaPayTo?: string }): Record<string, string> {
  const env: Record<string, string> = { LAGOON_PUBLIC_URL: PUBLIC_URL };
  if (chains.anvil) {
    Object.assign(env, {
      LAGOON_X402_BASE_RPC_URL: chains.anvil.rpcUrl,
      LAGOON_X402_BASE_PAY_TO: BASE_PAY_TO,
      LAGOON_X402_BASE_FACILITATOR_KEY: FACILITATOR_KEY,
    });
  }
  if (chains.solana && chains.solanaPayTo) {
    Object.assign(env, {
      LAGOON_X402_SOLANA_RPC_URL: chains.solana.rpcUrl,
      LAGOON_X402_SOLANA_PAY_TO: chains.solanaPayTo,
      LAGOON_X402_SOLANA_FEE_PAYER_KEY: base58.encode(chains.solana.feePayer.secret),
    });
  }
  return env;
}

export const evmWallet = (): LocalAccount => privateKeyToAccount(generatePrivateKey());

export async function solanaWallet(): Promise<KeyPairSigner> {
  return createKeyPairSignerFromPrivateKeyBytes(randomBytes(32));
}

export async function challenge(h: Pick<Harness, 'base'>): Promise<SIWxExtensionInfo> {
  const res = await fetch(`${h.base}/x402/siwx/challenge`);
  if (res.status !== 200) throw new Error(`challenge: HTTP ${res.status}`);
  return (await res.json()).data.info;
}

export type SignInSigner = LocalAccount | KeyPairSigner | { address: string; signMessage(a: { message: string }): Promise<Hex> };

const isSolana = (s: SignInSigner) => 'signMessages' in s;

/**
 * A header in the x402 form, signed by the published SDK over a server challenge (optionally altered first). The
 * SDK refuses to sign a challenge whose URI is on another origin than its domain; `sdk: false` signs such a one by
 * hand (EVM), to show the server refuses it too.
 */
export async function signInHeader(
  h: Pick<Harness, 'base'>,
  signer: SignInSigner,
  alter: (info: SIWxExtensionInfo) => SIWxExtensionInfo = (i) => i,
  opts: { sdk?: boolean } = {},
): Promise<string> {
  const info = alter(await challenge(h));
  const chain = isSolana(signer)
    ? { chainId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', type: 'ed25519' as const }
    : { chainId: 'eip155:8453', type: 'eip191' as const };
  if (opts.sdk === false && !isSolana(signer)) {
    const evm = signer as LocalAccount;
    const signature = await evm.signMessage({ message: createSIWxMessage({ ...info, ...chain }, evm.address) });
    return encodeSIWxHeader({ ...info, ...chain, address: evm.address, signature });
  }
  const payload = await createSIWxPayload({ ...info, ...chain }, signer as never, new URL(info.uri).origin);
  return encodeSIWxHeader(payload);
}

/** Decodes, changes and re-encodes a header (for tampering tests). */
export function editHeader(header: string, edit: (payload: Record<string, any>) => void): string {
  const payload = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
  edit(payload);
  return Buffer.from(JSON.stringify(payload)).toString('base64');
}

/** The legacy form (full message text, client-chosen nonce), as deployed Venice-style clients send it. */
export async function legacyEvmHeader(account: LocalAccount, over: { nonce?: string; issuedAt?: Date; domain?: string } = {}): Promise<string> {
  const issuedAt = over.issuedAt ?? new Date();
  const message = createSiweMessage({
    domain: over.domain ?? new URL(PUBLIC_URL).host,
    address: account.address,
    statement: 'Sign in to Lagoon',
    uri: PUBLIC_URL,
    version: '1',
    chainId: 8453,
    nonce: over.nonce ?? randomBytes(8).toString('hex'),
    issuedAt,
    expirationTime: new Date(issuedAt.getTime() + 600_000),
  });
  const signature = await account.signMessage({ message });
  return Buffer.from(JSON.stringify({ address: account.address, message, signature, timestamp: issuedAt.getTime(), chainId: 8453 })).toString('base64');
}

/** A legacy Solana header whose signature is written in base64 (as some wallets return it). */
export async function legacySolanaHeader(seed: Uint8Array, message: (address: string) => string): Promise<string> {
  const address = base58.encode(ed25519.getPublicKey(seed));
  const text = message(address);
  const signature = Buffer.from(ed25519.sign(new TextEncoder().encode(text), seed)).toString('base64');
  return Buffer.from(JSON.stringify({ address, message: text, signature, chainId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', type: 'ed25519' })).toString(
    'base64',
  );
}

/** POST /chat/completions signed in with a wallet header (SIGN-IN-WITH-X unless another name is given). */
export async function walletChat(h: Harness, header: string, body: Record<string, unknown> = {}, headerName = 'SIGN-IN-WITH-X') {
  const res = await fetch(`${h.base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [headerName]: header },
    body: JSON.stringify({ model: 'scripted-model', messages: [{ role: 'user', content: '[[tokens:5]]' }], ...body }),
  });
  return readResult(res);
}

/** A response's status, headers, text and (when it parses) JSON. */
async function readResult(res: Response) {
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

// --- payments ---

/** A published x402 client paying with an EVM account, with its $1 default per-payment cap raised (or lifted). */
export function evmPayer(account: LocalAccount, opts: { anyAsset?: boolean } = {}): x402Client {
  // The adversarial client (anyAsset) also signs for other EVM chains.
  const client = new x402Client().register(opts.anyAsset ? 'eip155:*' : 'eip155:8453', new ExactEvmClientScheme(account));
  return client.setSpendControls(opts.anyAsset ? false : { maxAmountPerPayment: '$10000' });
}

/** The 402 of POST /x402/top-up (optionally priced at `amountUsd`), decoded from its PAYMENT-REQUIRED header. */
export async function topUpRequirements(h: Harness, amountUsd?: number): Promise<PaymentRequired> {
  const res = await fetch(`${h.base}/x402/top-up${amountUsd === undefined ? '' : `?amount=${amountUsd}`}`, { method: 'POST' });
  if (res.status !== 402) throw new Error(`top-up without payment: HTTP ${res.status} ${await res.text()}`);
  return decodePaymentRequiredHeader(res.headers.get('payment-required')!);
}

/** POST /x402/top-up with a payment header (PAYMENT-SIGNATURE unless another name is given). */
export async function postTopUp(h: Harness, header: string, name = 'PAYMENT-SIGNATURE') {
  const res = await fetch(`${h.base}/x402/top-up`, { method: 'POST', headers: { [name]: header } });
  return readResult(res);
}

/** Signs a payment for (possibly altered) requirements with a published client; the PAYMENT-SIGNATURE value. */
export async function signPayment(
  client: x402Client,
  required: PaymentRequired,
  alter: (r: PaymentRequirements) => PaymentRequirements = (r) => r,
  network = 'eip155:8453',
): Promise<string> {
  const accepts = required.accepts.filter((a) => a.network === network).map(alter);
  return encodePaymentSignatureHeader(await client.createPaymentPayload({ ...required, accepts }));
}

/** An EIP-3009 authorization signed by hand (for fields a client would never choose, and for legacy envelopes). */
export async function signAuthorization(account: LocalAccount, a: { to: string; value: bigint; validAfter?: bigint; validBefore?: bigint }) {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const authorization = {
    from: account.address,
    to: a.to as Hex,
    value: a.value,
    validAfter: a.validAfter ?? 0n,
    validBefore: a.validBefore ?? now + 300n,
    nonce: toHex(randomBytes(32)),
  };
  const signature = await account.signTypedData({
    domain: { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: BASE_MAINNET.usdc },
    types: {
      TransferWithAuthorization: [
        { name: 'from', type: 'address' },
        { name: 'to', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' },
        { name: 'validBefore', type: 'uint256' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  });
  const wire = { ...authorization, value: String(a.value), validAfter: String(authorization.validAfter), validBefore: String(authorization.validBefore) };
  return { signature, authorization: wire };
}

export const toBase64Json = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64');

/** The wallet's own statement (`GET /x402/transactions/:address`), read with its Sign-In-With-X header. */
export async function walletStatement(h: Harness, account: LocalAccount) {
  await h.svc.ledger.drain();
  const res = await fetch(`${h.base}/x402/transactions/${account.address}`, { headers: { 'SIGN-IN-WITH-X': await signInHeader(h, account) } });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()).data as {
    currentBalance: number;
    transactions: { type: string; amount: number; requestId: string | null; transaction: string | null }[];
  };
}

// Reading a payment header (PAYMENT-SIGNATURE, X-402-Payment or X-PAYMENT) into a payment we are willing to hand to
// the facilitator. Three envelopes arrive: x402 v2 (with `accepted`), v1 (`scheme` + v1 network name), and the
// hybrid deployed Venice clients send (x402Version 2 in the v1 shape). The scheme payload (EIP-3009 authorization or
// Solana transaction) is the same in all three, and it is what the signature covers, so each is normalised to a v2
// payload whose `accepted` is our own offer at the payment's amount. Everything a client chose is checked against
// our offer here, before any facilitator call: network, token, recipient, timeout, extra, and the amount's bounds.
import { createHash } from 'node:crypto';
import { getTransactionDecoder } from '@solana/kit';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { ApiError } from '../api/errors.ts';
import { isAddress } from 'viem';
import type { WalletConfig } from './config.ts';
import { V1_NETWORK_NAMES } from './networks.ts';
import { evmOffer, type Rail, solanaOffer } from './requirements.ts';
import { decodeBase64Json } from './siwx-payload.ts';

export interface Payment {
  rail: Rail;
  /** v2, with `accepted` = requirements. */
  payload: PaymentPayload;
  requirements: PaymentRequirements;
  /** Micro-USD (USDC units). */
  amount: number;
  /**
   * What the chain allows to happen once: EVM `network:token:from:nonce` (EIP-3009), Solana `network:sha256(message)`.
   * The signature is deliberately not part of it (an ECDSA signature has a second valid form).
   */
  paymentKey: string;
  /** EVM: the authorization's signer; Solana: known only once the facilitator has read the transaction. */
  payer: string | undefined;
  /** The scheme the client chose from our offer: `upto` is authorised and settled as its cap (per-request.ts). */
  scheme: 'exact' | 'upto';
  /** EVM: the authorization (for finding a settlement on chain). */
  authorization?: { from: string; to: string; value: string; nonce: string };
}

export const MAX_PAYMENT_HEADER = 64 * 1024;

/**
 * What a payment may be: the schemes taken and the amount's bounds (micro-USD). A top-up takes `exact` from the
 * minimum to the maximum top-up; a request paid on the spot takes its own bounds and, for metered work, `upto`.
 */
export interface PaymentTerms {
  schemes: readonly ('exact' | 'upto')[];
  min: number;
  max: number;
  /** What the amount is, in refusals ("top-up", "payment"). */
  what: string;
}

export const topUpTerms = (cfg: WalletConfig): PaymentTerms => ({ schemes: ['exact'], min: cfg.minTopUp, max: cfg.maxTopUp, what: 'top-up' });

const bad = (why: string) => new ApiError('INVALID_PAYMENT_FORMAT', `The payment header is invalid: ${why}`);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const eqAddress = (rail: Rail, a: unknown, b: string) => typeof a === 'string' && (rail === 'evm' ? a.toLowerCase() === b.toLowerCase() : a === b);

function sameJson(a: unknown, b: unknown): boolean {
  if (!isObject(a) || !isObject(b)) return a === b;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && sameJson(a[k], b[k]));
}

function amountOf(raw: unknown, t: PaymentTerms): number {
  if (typeof raw !== 'string' || !/^[0-9]{1,30}$/.test(raw))
    throw new ApiError('INVALID_AMOUNT', 'The payment amount must be a whole number of token units, as a decimal string');
  const units = BigInt(raw);
  if (units < BigInt(t.min)) throw new ApiError('AMOUNT_TOO_LOW', `The ${t.what} amount must be at least ${t.min / 1e6} USD (${t.min} units)`);
  if (units > BigInt(t.max)) throw new ApiError('AMOUNT_TOO_HIGH', `The ${t.what} amount must be at most ${t.max / 1e6} USD (${t.max} units)`);
  return Number(units);
}

function railOf(network: unknown, cfg: WalletConfig): Rail {
  const caip = typeof network === 'string' ? (Object.hasOwn(V1_NETWORK_NAMES, network) ? V1_NETWORK_NAMES[network] : network) : undefined;
  if (cfg.rails.evm && caip === cfg.evm.network) return 'evm';
  if (cfg.rails.solana && caip === cfg.solana.network) return 'solana';
  const accepted = [cfg.rails.evm ? cfg.evm.network : undefined, cfg.rails.solana ? cfg.solana.network : undefined].filter(Boolean).join(', ');
  throw new ApiError('UNSUPPORTED_NETWORK', `Payments on ${String(network)} are not accepted; accepted networks: ${accepted || 'none'}`);
}

/** The client's copy of the requirement must be our offer in every field but the amount. */
function checkAccepted(rail: Rail, accepted: Record<string, unknown>, offer: PaymentRequirements): void {
  if (!eqAddress(rail, accepted.asset, offer.asset)) throw new ApiError('UNSUPPORTED_TOKEN', `Only ${offer.asset} (USDC) is accepted on ${offer.network}`);
  if (!eqAddress(rail, accepted.payTo, offer.payTo)) throw new ApiError('INVALID_PAYMENT_RECIPIENT', `Payments must be made to ${offer.payTo}`);
  if (accepted.maxTimeoutSeconds !== offer.maxTimeoutSeconds) throw new ApiError('INVALID_PAYMENT', `maxTimeoutSeconds must be ${offer.maxTimeoutSeconds}`);
  if (!sameJson(accepted.extra ?? {}, offer.extra)) throw new ApiError('INVALID_PAYMENT', `extra must be ${JSON.stringify(offer.extra)}`);
}

function evmPayment(cfg: WalletConfig, t: PaymentTerms, env: Record<string, unknown>, accepted: Record<string, unknown> | undefined): Payment {
  const scheme = isObject(env.payload) ? env.payload : undefined;
  const auth = scheme && isObject(scheme.authorization) ? scheme.authorization : undefined;
  // Only EIP-3009 authorizations (USDC's transferWithAuthorization): what makes a payment unique is their nonce.
  if (!scheme || !auth || typeof scheme.signature !== 'string') throw bad('an EVM payment must carry an EIP-3009 authorization and its signature');
  const { from, to, value, nonce, validAfter, validBefore } = auth;
  if (typeof from !== 'string' || !isAddress(from, { strict: false })) throw bad('authorization.from must be an address');
  if (typeof nonce !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(nonce)) throw bad('authorization.nonce must be 32 bytes in hex');
  if (![validAfter, validBefore].every((v) => typeof v === 'string' && /^[0-9]{1,30}$/.test(v)))
    throw bad('authorization.validAfter and validBefore must be decimal strings');
  const amount = amountOf(value, t);
  const offer = evmOffer(cfg, amount);
  if (accepted) {
    checkAccepted('evm', accepted, offer);
    if (accepted.amount !== value) throw new ApiError('INVALID_PAYMENT', 'accepted.amount differs from the authorization value');
  }
  if (!eqAddress('evm', to, offer.payTo)) throw new ApiError('INVALID_PAYMENT_RECIPIENT', `Payments must be made to ${offer.payTo}`);
  return {
    rail: 'evm',
    payload: { x402Version: 2, accepted: offer, payload: { signature: scheme.signature, authorization: { ...auth } } },
    requirements: offer,
    amount,
    scheme: 'exact',
    paymentKey: `${offer.network}:${offer.asset.toLowerCase()}:${from.toLowerCase()}:${nonce.toLowerCase()}`,
    payer: from,
    authorization: { from, to: String(to), value: String(value), nonce },
  };
}

async function solanaPayment(
  cfg: WalletConfig,
  t: PaymentTerms,
  env: Record<string, unknown>,
  accepted: Record<string, unknown> | undefined,
  feePayer: string | undefined,
): Promise<Payment> {
  if (!feePayer) throw new ApiError('X402_NOT_CONFIGURED', 'Solana payments are not available right now (no fee payer)');
  // The amount of a Solana payment is read from `accepted` (the facilitator then checks the transfer against it), so
  // only v2 envelopes can be taken.
  if (!accepted) throw bad('Solana payments need an x402 v2 PAYMENT-SIGNATURE with `accepted`');
  const scheme = isObject(env.payload) ? env.payload : undefined;
  if (!scheme || typeof scheme.transaction !== 'string' || scheme.transaction.length > MAX_PAYMENT_HEADER)
    throw bad('a Solana payment must carry a base64 transaction');
  let messageBytes: Uint8Array;
  try {
    messageBytes = new Uint8Array(getTransactionDecoder().decode(Buffer.from(scheme.transaction, 'base64')).messageBytes);
  } catch {
    throw bad('the Solana transaction could not be decoded');
  }
  const amount = amountOf(accepted.amount, t);
  const offer = solanaOffer(cfg, amount, feePayer);
  checkAccepted('solana', accepted, offer);
  return {
    rail: 'solana',
    payload: { x402Version: 2, accepted: offer, payload: { transaction: scheme.transaction } },
    requirements: offer,
    amount,
    scheme: 'exact',
    paymentKey: `${offer.network}:${createHash('sha256').update(messageBytes).digest('hex')}`,
    payer: undefined,
  };
}

/** Normalises and checks a payment header; throws a 4xx ApiError naming the first field that is not acceptable. */
export async function readPayment(
  header: string,
  cfg: WalletConfig,
  solanaFeePayer: () => Promise<string | undefined>,
  terms: PaymentTerms = topUpTerms(cfg),
): Promise<Payment> {
  const env = decodeBase64Json(header, 'INVALID_PAYMENT_FORMAT', MAX_PAYMENT_HEADER);
  if (env.x402Version !== 1 && env.x402Version !== 2) throw bad('x402Version must be 1 or 2');
  const accepted = isObject(env.accepted) ? env.accepted : undefined;
  if (env.x402Version === 2 && env.accepted !== undefined && !accepted) throw bad('accepted must be an object');
  const scheme = accepted ? accepted.scheme : env.scheme;
  const network = accepted ? accepted.network : env.network;
  if (!terms.schemes.includes(scheme as 'exact'))
    throw new ApiError('UNSUPPORTED_SCHEME', `The "${String(scheme)}" scheme is not accepted here; use ${terms.schemes.map((x) => `"${x}"`).join(' or ')}`);
  const rail = railOf(network, cfg);
  // Our `upto` is authorised with the exact scheme's payload for the cap (an EIP-3009 authorization, a Solana
  // transfer): the packages' Permit2 and payment-channel forms are not taken, and the checks below say so.
  const envelope = accepted && scheme === 'upto' ? { ...env, accepted: { ...accepted, scheme: 'exact' } } : env;
  const inner = accepted && scheme === 'upto' ? { ...accepted, scheme: 'exact' } : accepted;
  const p = rail === 'evm' ? evmPayment(cfg, terms, envelope, inner) : await solanaPayment(cfg, terms, envelope, inner, await solanaFeePayer());
  return { ...p, scheme: scheme as 'exact' | 'upto' };
}

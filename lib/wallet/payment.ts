// Reading a payment header (PAYMENT-SIGNATURE, X-402-Payment or X-PAYMENT) into a payment we are willing to hand to
// the facilitator. Three envelopes arrive: x402 v2 (with `accepted`), v1 (`scheme` + v1 network name), and the
// hybrid deployed Venice clients send (x402Version 2 in the v1 shape). The scheme payload (EIP-3009 authorization or
// Solana transaction) is the same in all three, and it is what the signature covers, so each is normalised to a v2
// payload whose `accepted` is our own offer at the payment's amount. Everything a client chose is checked against
// our offer here, before any facilitator call: network, token, recipient, timeout, extra, and the amount's bounds.
// x402's own EVM `upto` (a Permit2 transfer of at most the cap, per-request.ts) comes only in the v2 envelope.
import { createHash } from 'node:crypto';
import { getTransactionDecoder } from '@solana/kit';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { ApiError } from '../api/errors.ts';
import { isAddress } from 'viem';
import type { WalletConfig } from './config.ts';
import { V1_NETWORK_NAMES } from './networks.ts';
import { evmOffer, evmUptoOffer, type Rail, solanaOffer } from './requirements.ts';
import { x402UptoPermit2ProxyAddress } from '@x402/evm';
import { decodeBase64Json } from './siwx-payload.ts';

export interface Payment {
  rail: Rail;
  /** v2, with `accepted` = requirements. */
  payload: PaymentPayload;
  requirements: PaymentRequirements;
  /** Micro-USD (USDC units). */
  amount: number;
  /**
   * What the chain allows to happen once: EVM `network:token:from:nonce` (EIP-3009) or `network:permit2:from:nonce`
   * (Permit2's nonces are the owner's, whatever the token), Solana `network:sha256(message)`. The signature is
   * deliberately not part of it (an ECDSA signature has a second valid form).
   */
  paymentKey: string;
  /** EVM: the authorization's signer; Solana: known only once the facilitator has read the transaction. */
  payer: string | undefined;
  /** The scheme the client chose from our offer (per-request.ts). */
  scheme: 'exact' | 'upto';
  /**
   * x402's own `upto` (a Permit2 authorisation of `amount` at most): verified before the work, settled after it for
   * what the work used. Otherwise a payment is settled for `amount` before the work (an `upto` one for its cap).
   */
  settledAfterWork: boolean;
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
    settledAfterWork: false,
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
    settledAfterWork: false,
    paymentKey: `${offer.network}:${createHash('sha256').update(messageBytes).digest('hex')}`,
    payer: undefined,
  };
}

const UINT = /^[0-9]{1,78}$/;

/** x402's own EVM `upto`: a Permit2 transfer to the upto proxy of at most the cap, for our recipient and facilitator. */
async function evmUptoPayment(
  cfg: WalletConfig,
  t: PaymentTerms,
  env: Record<string, unknown>,
  accepted: Record<string, unknown> | undefined,
  facilitator: string,
): Promise<Payment> {
  if (!accepted) throw bad('an upto payment needs an x402 v2 PAYMENT-SIGNATURE with `accepted`');
  const scheme = isObject(env.payload) ? env.payload : undefined;
  const auth = scheme && isObject(scheme.permit2Authorization) ? scheme.permit2Authorization : undefined;
  const permitted = auth && isObject(auth.permitted) ? auth.permitted : undefined;
  const witness = auth && isObject(auth.witness) ? auth.witness : undefined;
  if (!scheme || !auth || !permitted || !witness || typeof scheme.signature !== 'string' || !/^0x[0-9a-fA-F]+$/.test(scheme.signature))
    throw bad(`an upto payment on ${cfg.evm.network} must carry a Permit2 authorization (permit2Authorization) and its signature`);
  const { from, spender, nonce, deadline } = auth;
  if (typeof from !== 'string' || !isAddress(from, { strict: false })) throw bad('permit2Authorization.from must be an address');
  if (![nonce, deadline, witness.validAfter].every((v) => typeof v === 'string' && UINT.test(v)))
    throw bad('permit2Authorization.nonce, deadline and witness.validAfter must be decimal strings');
  const amount = amountOf(permitted.amount, t);
  const offer = await evmUptoOffer(cfg, amount, facilitator);
  checkAccepted('evm', accepted, offer);
  if (accepted.amount !== permitted.amount) throw new ApiError('INVALID_PAYMENT', 'accepted.amount differs from the permitted amount');
  if (!eqAddress('evm', permitted.token, offer.asset)) throw new ApiError('UNSUPPORTED_TOKEN', `Only ${offer.asset} (USDC) is accepted on ${offer.network}`);
  if (!eqAddress('evm', witness.to, offer.payTo)) throw new ApiError('INVALID_PAYMENT_RECIPIENT', `Payments must be made to ${offer.payTo}`);
  if (!eqAddress('evm', spender, x402UptoPermit2ProxyAddress))
    throw new ApiError('INVALID_PAYMENT', `The Permit2 spender must be ${x402UptoPermit2ProxyAddress}`);
  if (!eqAddress('evm', witness.facilitator, facilitator)) throw new ApiError('INVALID_PAYMENT', `The witness must name the facilitator ${facilitator}`);
  const permit2Authorization = {
    from,
    permitted: { token: permitted.token, amount: permitted.amount },
    spender,
    nonce,
    deadline,
    witness: { to: witness.to, facilitator: witness.facilitator, validAfter: witness.validAfter },
  };
  return {
    rail: 'evm',
    payload: { x402Version: 2, accepted: offer, payload: { signature: scheme.signature, permit2Authorization } },
    requirements: offer,
    amount,
    scheme: 'upto',
    settledAfterWork: true,
    paymentKey: `${offer.network}:permit2:${from.toLowerCase()}:${nonce}`,
    payer: from,
  };
}

/**
 * Normalises and checks a payment header; throws a 4xx ApiError naming the first field that is not acceptable.
 * `uptoFacilitator`: the address that settles x402's own EVM `upto` (undefined: `upto` is the exact payload for the cap).
 */
export async function readPayment(
  header: string,
  cfg: WalletConfig,
  solanaFeePayer: () => Promise<string | undefined>,
  terms: PaymentTerms = topUpTerms(cfg),
  uptoFacilitator: () => Promise<string | undefined> = async () => undefined,
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
  if (rail === 'evm' && scheme === 'upto') {
    const facilitator = await uptoFacilitator();
    if (facilitator) return evmUptoPayment(cfg, terms, env, accepted, facilitator);
  }
  // Elsewhere (Solana, an EVM network without x402's upto contracts) our `upto` is authorised with the exact scheme's
  // payload for the cap (an EIP-3009 authorization, a Solana transfer): Permit2 and payment-channel forms are not
  // taken there, and the checks below say so.
  const envelope = accepted && scheme === 'upto' ? { ...env, accepted: { ...accepted, scheme: 'exact' } } : env;
  const inner = accepted && scheme === 'upto' ? { ...accepted, scheme: 'exact' } : accepted;
  const p = rail === 'evm' ? evmPayment(cfg, terms, envelope, inner) : await solanaPayment(cfg, terms, envelope, inner, await solanaFeePayer());
  return { ...p, scheme: scheme as 'exact' | 'upto' };
}

// x402 per request: a chat, image or JSON-RPC request sent without credentials is paid on the spot
// (LAGOON_X402_PER_REQUEST).
//
// Unpaid, the request runs as a placeholder caller up to the point where its metered call prices its worst case (the
// same code that prices every hold, so the price cannot drift from what is held), and is answered 402 there: `accepts`
// lists `exact` at the price for images and JSON-RPC calls (the call's credits, each at the dearer of its method's and
// the error rate: what its hold covers), and `upto` with the price as the cap for chat (prompt + max_tokens at the
// model's prices, plus any planned web search). Nothing is admitted, held or run.
//
// Paid (PAYMENT-SIGNATURE, or X-PAYMENT), the payment is read and verified before the work starts, and the request
// runs as the payer's wallet (created on first use: its own account, as for Sign-In-With-X). When its metered call
// knows the price, the payment must be for exactly that price (or cap); it is then claimed, settled and credited to
// the wallet once (lib/wallet/topup.ts: a replay, concurrent or on another instance, finds the claim), the work holds
// and runs against that credit and is charged what it used, and the answer carries PAYMENT-RESPONSE (and
// X-PAYMENT-RESPONSE for the legacy headers). Anything refused before that point moves no money.
//
// `upto`. The x402 upto scheme authorises a maximum and settles only what was used. On an EVM network where x402's
// upto contracts are deployed and our facilitator settles them (LAGOON_X402_UPTO_NETWORKS; Base by default), that is
// what chat is offered: the published scheme (@x402/evm/upto), a Permit2 transfer of at most the cap to x402's upto
// proxy, bound to our recipient and our facilitator. The payer approves Permit2 for USDC once, on chain, before
// the first such payment (the 402's description says so; verification fails with permit2_allowance_required
// otherwise). The payment is verified before the work starts (signature, balance, allowance: a simulated settlement
// of the cap), claimed, and the work runs against the cap credited provisionally; after it, exactly what it was
// charged is settled on chain and credited, and the rest of the cap is taken back (lib/wallet/upto-settlement.ts).
// The payer's USDC decreases by the charge alone; a request that fails before producing anything moves nothing. A
// non-streamed answer carries PAYMENT-RESPONSE in its head; a stream, whose head leaves before the settlement, as an
// HTTP trailer and an SSE comment line before its usage chunk (lib/http/sse-pipe.ts).
//
// Elsewhere (Solana, whose upto is a payment channel program, or an EVM network without the contracts) USDC's own
// authorization (EIP-3009) moves exactly the signed value, as does a signed Solana transfer. There our `upto` is
// authorised with the exact scheme's payload for the cap, the cap is settled before the work starts, the work is
// charged what it used, and the unused part is returned to the wallet's balance (its statement shows the payment and
// the charge; the wallet spends the rest by signing in with Sign-In-With-X, or tops up no more until it is used).
// Work that fails before its answer is delivered releases its hold the same way: its whole payment stays the wallet's.
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { PERMIT2_ADDRESS } from '@x402/evm';
import { ApiError, isApiError } from '../api/errors.ts';
import type { Principal } from '../auth/keys.ts';
import { gatedPrincipal } from '../billing/payment-gate.ts';
import { fromMicros } from '../billing/money.ts';
import type { SecretBox } from '../db/secret-box.ts';
import type { Store } from '../db/store.ts';
import type { WalletConfig } from './config.ts';
import type { Facilitator } from './facilitator.ts';
import type { PaymentTerms } from './payment.ts';
import { requestOffers } from './requirements.ts';
import { settlePayment, spentPayment, verifyPayment } from './topup.ts';
import { authorizeUpto } from './upto-settlement.ts';
import { ensureWallet, type Wallet, walletPrincipal } from './wallets.ts';

export type RequestScheme = 'exact' | 'upto';

/** The routes that take a payment per request (paths under /api/v1), and the scheme they are offered under. */
const ROUTES: Record<string, RequestScheme> = {
  '/api/v1/chat/completions': 'upto',
  '/api/v1/images/generations': 'exact',
  '/api/v1/image/generate': 'exact',
};

/** Routes with a parameter, by prefix: POST /crypto/rpc/{network} (GET /crypto/rpc/networks asks for no caller). */
const PREFIXES: [string, RequestScheme][] = [['/api/v1/crypto/rpc/', 'exact']];

export function requestSchemeOf(cfg: WalletConfig, path: string): RequestScheme | undefined {
  if (!cfg.perRequest.enabled || !(cfg.rails.evm || cfg.rails.solana)) return undefined;
  if (Object.hasOwn(ROUTES, path)) return ROUTES[path];
  return PREFIXES.find(([prefix]) => path.startsWith(prefix) && path.length > prefix.length)?.[1];
}

export interface PerRequestDeps {
  store: Store;
  cfg: WalletConfig;
  facilitator: Facilitator;
  /** Seals an `upto` payment kept with its claim (upto-settlement.ts). */
  secrets: SecretBox | undefined;
  /** The origin resources are named under. */
  url: (path: string) => string;
}

/** A request's 402: what to sign for it. */
async function priced(deps: PerRequestDeps, path: string, scheme: RequestScheme, amount: number, meta: { modelId: string }): Promise<PaymentRequired> {
  const feePayer = deps.cfg.rails.solana ? await deps.facilitator.solanaFeePayer() : undefined;
  const uptoFacilitator = scheme === 'upto' && deps.cfg.rails.evm ? await deps.facilitator.uptoFacilitator() : undefined;
  const accepts: PaymentRequirements[] = await requestOffers(deps.cfg, scheme, amount, feePayer, uptoFacilitator);
  const description =
    scheme !== 'upto'
      ? `${meta.modelId}: ${fromMicros(amount)} USD`
      : uptoFacilitator
        ? `${meta.modelId}: at most ${fromMicros(amount)} USD. On ${deps.cfg.evm.network} only what the request uses is settled (x402 upto, Permit2: approve Permit2 ${PERMIT2_ADDRESS} for USDC first); elsewhere the cap is paid and what the request does not use stays the wallet's credit`
        : `${meta.modelId}: at most ${fromMicros(amount)} USD; what the request does not use stays the wallet's credit`;
  return {
    x402Version: 2,
    error: 'Payment required',
    resource: { url: deps.url(path), description, mimeType: 'application/json' },
    accepts,
  };
}

function paymentRequiredError(pr: PaymentRequired, code: 'PAYMENT_REQUIRED' | 'PAYMENT_AMOUNT_MISMATCH', message?: string, extra = {}): ApiError {
  const { error: _, ...body } = pr;
  return new ApiError(code, message, { ...body, ...extra }, { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(pr) });
}

function refuseTooDear(cfg: WalletConfig, amount: number): void {
  if (amount > cfg.perRequest.maxAmount)
    throw new ApiError(
      'PAYMENT_REQUIRED',
      `This request may cost ${fromMicros(amount)} USD, more than the ${fromMicros(cfg.perRequest.maxAmount)} USD a request paid on the spot may cost: lower max_tokens, or sign in with a wallet that has credit`,
    );
}

/**
 * The caller of an unpaid request: a placeholder whose first metered call answers 402 with the price. It owns
 * nothing, and never gets as far as admission or a hold.
 */
export function quoteCaller(deps: PerRequestDeps, path: string, scheme: RequestScheme, requestId: string): Principal {
  const placeholder: Principal = {
    accountId: `x402-quote:${requestId}`,
    accountTier: 'default',
    keyId: `x402-quote:${requestId}`,
    keyType: 'INFERENCE',
    key: {
      id: `x402-quote:${requestId}`,
      accountId: `x402-quote:${requestId}`,
      type: 'INFERENCE',
      description: 'x402 per-request quote',
      last6: '',
      createdAt: Date.now(),
      expiresAt: null,
      revokedAt: null,
      lastUsedAt: null,
      limitUsd: null,
      limitDiem: null,
      limitPeriod: 'EPOCH',
      modelPrivacy: 'ALL',
      allowedModels: null,
      browserApp: false,
      memberId: null,
    },
  };
  return gatedPrincipal(
    placeholder,
    async (price, meta) => {
      refuseTooDear(deps.cfg, price.usd);
      throw paymentRequiredError(await priced(deps, path, scheme, price.usd, meta), 'PAYMENT_REQUIRED');
    },
    { quote: true },
  );
}

/**
 * The caller of a paid request: the payer's wallet, whose first metered call settles the payment (for exactly its
 * price or cap) and credits it before holding. `headers`: the response's, which receive PAYMENT-RESPONSE.
 * `idempotent`: the request carries an Idempotency-Key; the retry of a request whose answer was lost may then present
 * its spent payment again, and gets that request's stored answer (and nothing else: anything that would run is the
 * 409 a spent payment gets).
 */
export async function paidCaller(
  deps: PerRequestDeps,
  args: {
    path: string;
    scheme: RequestScheme;
    header: { name: string; value: string };
    requestId: string;
    headers: Record<string, string>;
    idempotent?: boolean;
  },
): Promise<{ principal: Principal; wallet: Wallet; lateHeaders?: string[] }> {
  const { cfg, store } = deps;
  const terms: PaymentTerms = { schemes: [args.scheme], min: 1, max: cfg.perRequest.maxAmount, what: 'payment' };
  const deps402 = { store, cfg, facilitator: deps.facilitator };
  let verified;
  try {
    verified = await verifyPayment(deps402, args.header.value, terms);
  } catch (e) {
    if (!args.idempotent || !isApiError(e) || e.code !== 'PAYMENT_ALREADY_CREDITED') throw e;
    const spent = await spentPayment(deps402, args.header.value, terms);
    if (!spent?.requestId) throw e;
    const wallet = await ensureWallet(store, spent.rail === 'evm' ? 'eip155' : 'solana', spent.payer);
    const principal = gatedPrincipal(
      await walletPrincipal(store, wallet),
      async () => {
        throw e;
      },
      { paidFor: spent.requestId },
    );
    return { principal, wallet };
  }
  const wallet = await ensureWallet(store, verified.payment.rail === 'evm' ? 'eip155' : 'solana', verified.payer);
  const principal = await walletPrincipal(store, wallet);
  const gated = gatedPrincipal(principal, async (price, meta) => {
    const paid = verified.payment.amount;
    if (paid !== price.usd) {
      refuseTooDear(cfg, price.usd);
      const pr = await priced(deps, args.path, args.scheme, price.usd, meta);
      const what = args.scheme === 'upto' ? 'the cap of' : 'the price of';
      throw paymentRequiredError(
        pr,
        'PAYMENT_AMOUNT_MISMATCH',
        `The payment is for ${fromMicros(paid)} USD, but ${what} this request is ${fromMicros(price.usd)} USD: sign the requirement in this answer`,
        { details: { paid: String(paid), required: String(price.usd) } },
      );
    }
    const answer = (settlement: SettleResponse) => {
      const value = encodePaymentResponseHeader(settlement);
      for (const name of responseHeaderNames(args.header.name)) args.headers[name] = value;
    };
    if (verified.payment.settledAfterWork) {
      const tab = await authorizeUpto({ ...deps402, secrets: deps.secrets }, verified, args.requestId);
      return { settle: async (charge) => answer(await tab.settle(charge.usd)), release: () => tab.release(), leave: () => tab.leave() };
    }
    answer((await settlePayment(deps402, verified, args.requestId)).settlement);
  });
  // A payment settled after the work names its settlement after the head of a stream has left (sse-pipe.ts).
  const lateHeaders = verified.payment.settledAfterWork ? responseHeaderNames(args.header.name) : undefined;
  return { principal: gated, wallet, lateHeaders };
}

/** The headers that carry a settlement: PAYMENT-RESPONSE, and X-PAYMENT-RESPONSE too for the legacy header names. */
const responseHeaderNames = (paidWith: string): string[] =>
  paidWith === 'payment-signature' ? ['PAYMENT-RESPONSE'] : ['PAYMENT-RESPONSE', 'X-PAYMENT-RESPONSE'];

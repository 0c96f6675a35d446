// Wallet users as the API layer sees them: sign-in, challenges, the 402 bodies, top-ups, balances and statements.
// Settings are read from the service configuration on every call (config.wallet), so they are one source of truth.
import { encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { ApiError } from '../api/errors.ts';
import { publicShapes } from '../api/wire.ts';
import type { Ledger } from '../billing/ledger-service.ts';
import { fromMicros } from '../billing/money.ts';
import type { Config } from '../config.ts';
import type { Store } from '../db/store.ts';
import { issueChallenge, type SiwxChallenge } from './challenge.ts';
import type { WalletConfig } from './config.ts';
import type { Facilitator } from './facilitator.ts';
import { offers, railNames } from './requirements.ts';
import { type SignedIn, signIn, verifySignIn } from './sign-in.ts';
import type { SignInClaim } from './siwx-payload.ts';
import { walletStatement } from './statement.ts';
import { topUp, type TopUpResult } from './topup.ts';
import type { Principal } from '../auth/keys.ts';
import { paidCaller, quoteCaller, type RequestScheme, requestSchemeOf } from './per-request.ts';
import type { Wallet } from './wallets.ts';
import { log } from '../log.ts';
import type { SecretBox } from '../db/secret-box.ts';
import { type AutoTopUpBody, mandateState, revokeMandate, SIGNED_VALIDITY_S, setMandate } from './auto-topup.ts';
import { AutoTopUpRunner } from './auto-topup-runner.ts';
import { UptoRecovery } from './upto-recovery.ts';
import { type CancelBody, type Cancelled, cancelOnChain } from './auto-topup-cancel.ts';
import { evmOffer } from './requirements.ts';
import type { AutoTopUpRevoked, AutoTopUpState } from './wire.ts';

export const API_BASE = '/api/v1';
export const TOP_UP_PATH = `${API_BASE}/x402/top-up`;
export const CHALLENGE_PATH = `${API_BASE}/x402/siwx/challenge`;

/** Header names, canonical first. */
export const SIGN_IN_HEADERS = ['sign-in-with-x', 'x-sign-in-with-x'] as const;
export const PAYMENT_HEADERS = ['payment-signature', 'x-402-payment', 'x-payment'] as const;

export class WalletService {
  private readonly store: Store;
  private readonly ledger: Ledger;
  private readonly config: Config;
  private readonly secrets: SecretBox | undefined;
  private facilitatorReady: Promise<Facilitator | undefined> | undefined;
  /** Settles auto top-ups when a charge leaves a mandate's wallet below its threshold (auto-topup-runner.ts). */
  readonly autoTopUps: AutoTopUpRunner;
  /** Finishes `upto` payments whose process died before settling them (upto-recovery.ts). */
  readonly uptoRecovery: UptoRecovery;

  constructor(store: Store, ledger: Ledger, config: Config, secrets?: SecretBox) {
    this.store = store;
    this.ledger = ledger;
    this.config = config;
    this.secrets = secrets;
    this.autoTopUps = new AutoTopUpRunner({ store, cfg: () => this.settings, facilitator: () => this.facilitator(), secrets });
    this.uptoRecovery = new UptoRecovery({ store, cfg: () => this.settings, facilitator: () => this.facilitator(), secrets });
    const s = config.wallet;
    if ((s.rails.evm || s.rails.solana) && new URL(s.publicOrigin).hostname === 'localhost') {
      log.warn(`wallets: sign-in is bound to ${s.publicOrigin}; set LAGOON_PUBLIC_URL to the origin users reach this server at`);
    }
  }

  get settings(): WalletConfig {
    return this.config.wallet;
  }

  /** The facilitator, loaded on first use (its chain libraries are large, and many deployments take no payments). */
  private facilitator(): Promise<Facilitator | undefined> {
    const s = this.settings;
    if (!s.facilitatorUrl && !s.rails.evm && !s.rails.solana) return Promise.resolve(undefined);
    return (this.facilitatorReady ??= import('./facilitator.ts').then((m) => m.createFacilitator(s)));
  }

  url(path: string): string {
    return `${this.settings.publicOrigin}${path}`;
  }

  signIn(header: string): Promise<SignedIn> {
    return signIn(this.store, this.settings, header);
  }

  /** The wallet's proof alone (nonce consumed, nothing created): for linking a wallet to a signed-in user. */
  verifySignIn(header: string): Promise<SignInClaim> {
    return verifySignIn(this.store, this.settings, header);
  }

  challenge(path: string): Promise<SiwxChallenge> {
    return issueChallenge(this.store, this.settings, path);
  }

  /** The accepted payments for a top-up of `amount` micro-USD (empty when no rail is configured). */
  async offers(amount: number): Promise<PaymentRequirements[]> {
    const f = await this.facilitator();
    if (!f) return [];
    return offers(this.settings, amount, this.settings.rails.solana ? await f.solanaFeePayer() : undefined);
  }

  private paymentRequired(
    resourcePath: string,
    description: string,
    accepts: PaymentRequirements[],
    error: string,
    extensions?: Record<string, unknown>,
  ): PaymentRequired {
    return {
      x402Version: 2,
      error,
      resource: { url: this.url(resourcePath), description, mimeType: 'application/json' },
      accepts,
      ...(extensions ? { extensions } : {}),
    };
  }

  /** 402 for POST /x402/top-up without a payment: what to sign, priced at `amount` (the minimum by default). */
  async topUpRequired(amount = this.settings.minTopUp): Promise<ApiError> {
    const accepts = await this.offers(amount);
    if (!accepts.length) return new ApiError('X402_NOT_CONFIGURED');
    const { minTopUp, maxTopUp } = this.settings;
    const pr = this.paymentRequired(
      TOP_UP_PATH,
      `Wallet credit top-up: any amount from ${fromMicros(minTopUp)} to ${fromMicros(maxTopUp)} USD`,
      accepts,
      'Payment required',
    );
    const { error: _, ...body } = pr;
    return new ApiError('PAYMENT_REQUIRED', 'Payment required', body, { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(pr) });
  }

  /** 402 for an inference call with no credentials: the x402 discovery body, with a Sign-In-With-X challenge. */
  async authenticationRequired(path: string): Promise<ApiError> {
    const [challenge, accepts] = await Promise.all([this.challenge(path), this.offers(this.settings.suggestedTopUp)]);
    const extensions = { 'sign-in-with-x': challenge };
    const pr = this.paymentRequired(path, 'Lagoon API', accepts, 'Authentication required', extensions);
    const { error: _, ...body } = pr;
    const x402Wallet = { header: 'SIGN-IN-WITH-X', legacyHeader: 'X-Sign-In-With-X', topUp: `POST ${TOP_UP_PATH}` };
    return new ApiError(
      'AUTHENTICATION_REQUIRED',
      undefined,
      {
        ...body,
        authOptions: {
          apiKey: { header: 'Authorization: Bearer YOUR_API_KEY' },
          // The challenge route is this server's own; the public API's schema has no such field.
          x402Wallet: this.publicShapes ? x402Wallet : { ...x402Wallet, challenge: `GET ${CHALLENGE_PATH}` },
        },
      },
      { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(pr) },
    );
  }

  /** 402 for a signed-in wallet without enough credit: how to top up, and a fresh challenge for the retry. */
  async insufficientCredit(accountId: string, path: string): Promise<ApiError> {
    const s = this.settings;
    const [challenge, accepts, balances] = await Promise.all([this.challenge(path), this.offers(s.suggestedTopUp), this.ledger.balances(accountId)]);
    const pr = this.paymentRequired(TOP_UP_PATH, 'Wallet credit top-up', accepts, 'Payment required');
    const headers: Record<string, string> = accepts.length ? { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(pr) } : {};
    const exact = this.publicShapes;
    // Deployed clients read one rail's receiver, token and network at the top level: the EVM rail's when there is
    // one (the public API describes Base only), else the first.
    const primary = accepts.find((a) => a.network.startsWith('eip155:')) ?? accepts[0];
    const steps = {
      step1: `POST ${TOP_UP_PATH} with no payment header: the 402 answer lists the accepted payments (add ?amount=<USD> to choose the amount)`,
      step2: 'Sign one of them with the wallet: a USDC transfer authorization (EIP-3009) on Base, or a USDC transfer on Solana; any x402 client does this',
      step3: `POST ${TOP_UP_PATH} again with the signed payment in the PAYMENT-SIGNATURE header; the credit is the wallet's at once`,
    };
    const topUpInstructions = primary
      ? {
          ...(exact ? {} : { endpoint: `POST ${TOP_UP_PATH}` }),
          ...steps,
          receiverWallet: primary.payTo,
          tokenAddress: primary.asset,
          tokenDecimals: 6,
          network: primary.network,
          minimumAmountUsd: fromMicros(s.minTopUp),
          ...(exact ? {} : { accepts: accepts.map((a) => ({ network: a.network, tokenAddress: a.asset, receiverWallet: a.payTo })) }),
        }
      : { ...(exact ? {} : { endpoint: null }), step1: 'Top-ups are not enabled on this server: ask its operator for credit' };
    const { schema: _schema, ...publicChallenge } = challenge;
    return new ApiError(
      'PAYMENT_REQUIRED',
      undefined,
      {
        reason: 'insufficient_balance',
        message: 'The wallet has too little credit for this request: top up with USDC',
        currentBalanceUsd: fromMicros(Math.max(0, balances.usd - balances.usdHeld)),
        ...(exact ? { description: 'Lagoon API' } : {}),
        minimumTopUpUsd: fromMicros(s.minTopUp),
        ...(exact ? {} : { maximumTopUpUsd: fromMicros(s.maxTopUp) }),
        suggestedTopUpUsd: fromMicros(s.suggestedTopUp),
        supportedTokens: ['USDC'],
        supportedChains: railNames(s),
        topUpInstructions,
        siwxChallenge: exact ? publicChallenge : challenge,
      },
      headers,
    );
  }

  /** Whether bodies take the public API's exact shapes (LAGOON_WIRE_NAME=venice): no field its schemas lack. */
  get publicShapes(): boolean {
    return publicShapes(this.config.wire);
  }

  async topUp(header: string): Promise<TopUpResult> {
    const facilitator = await this.facilitator();
    if (!facilitator) throw new ApiError('X402_NOT_CONFIGURED');
    return topUp({ store: this.store, cfg: this.settings, facilitator }, header);
  }

  /** The scheme a request to `path` without credentials may be paid under on the spot; undefined: not offered. */
  requestScheme(path: string): RequestScheme | undefined {
    return requestSchemeOf(this.settings, path);
  }

  private async perRequestDeps() {
    const facilitator = await this.facilitator();
    if (!facilitator) throw new ApiError('X402_NOT_CONFIGURED');
    return { store: this.store, cfg: this.settings, facilitator, secrets: this.secrets, url: (path: string) => this.url(path) };
  }

  /** The caller of an unpaid request to `path`: its metered call answers 402 with the price (per-request.ts). */
  async quoteCaller(path: string, scheme: RequestScheme, requestId: string): Promise<Principal> {
    return quoteCaller(await this.perRequestDeps(), path, scheme, requestId);
  }

  /** The caller of a request paid with `header`: the payer's wallet, paying when its metered call is priced. */
  async paidCaller(args: Parameters<typeof paidCaller>[1]): ReturnType<typeof paidCaller> {
    return paidCaller(await this.perRequestDeps(), args);
  }

  /** Spendable USD (micro): the balance less what in-flight requests hold. */
  async spendable(wallet: Wallet): Promise<{ usd: number; held: number }> {
    const b = await this.ledger.balances(wallet.accountId);
    return { usd: Math.max(0, b.usd - b.usdHeld), held: b.usdHeld };
  }

  /** The wallet's auto top-up mandate and authorizations (never their signatures). */
  autoTopUp(wallet: Wallet): Promise<AutoTopUpState> {
    return mandateState(this.store, wallet);
  }

  /** Opts in (or replaces the mandate) with signed authorizations; then checks the balance at once. */
  async setAutoTopUp(wallet: Wallet, body: AutoTopUpBody): Promise<AutoTopUpState> {
    const state = await setMandate({ store: this.store, cfg: this.settings, secrets: this.secrets }, wallet, body);
    this.autoTopUps.nudge(wallet.accountId);
    return state;
  }

  revokeAutoTopUp(wallet: Wallet): Promise<AutoTopUpRevoked> {
    return revokeMandate(this.store, wallet);
  }

  /** Submits the wallet's signed `cancelAuthorization`s of discarded authorizations (auto-topup-cancel.ts). */
  cancelAutoTopUps(wallet: Wallet, body: CancelBody): Promise<Cancelled[]> {
    return cancelOnChain(this.store, this.settings, wallet, body);
  }

  /**
   * What a wallet signs for auto top-up: our Base offer at `amount`, with a validity of months rather than a
   * top-up's minutes (an x402 client sets validBefore = now + maxTimeoutSeconds). Undefined without a Base rail.
   */
  autoTopUpRequirement(amount: number): PaymentRequirements | undefined {
    if (!this.settings.rails.evm) return undefined;
    return { ...evmOffer(this.settings, amount), maxTimeoutSeconds: SIGNED_VALIDITY_S };
  }

  statement(wallet: Wallet, page: { limit: number; offset: number }) {
    return walletStatement(this.store, wallet, page);
  }
}

// Wallet sign-in (a Sign-In-With-X challenge) and wallet top-up (an x402 payment), EVM and Solana.

/** The wallet families the app signs in and tops up with: EVM (Base) and Solana. */
export type WalletChain = 'evm' | 'solana';

/** The Sign-In-With-X fields (x402 `sign-in-with-x` form) a wallet signs over, as the server issued them. */
export interface WalletSignInFields {
  domain: string;
  address: string;
  statement: string;
  uri: string;
  version: '1';
  /** CAIP-2, e.g. eip155:8453. */
  chainId: string;
  type: 'eip191' | 'ed25519';
  nonce: string;
  issuedAt: string;
  expirationTime: string;
}

export interface WalletChallenge {
  /** The exact text the wallet signs (EIP-4361 for EVM, its Solana form for Solana). */
  message: string;
  /** Send back unchanged, with the signature, to POST /api/app/wallet/sign-in. */
  fields: WalletSignInFields;
}

export interface WalletSignInRequest {
  /** The challenge's fields plus the signature: 0x hex (EVM) or base58 (Solana). */
  payload: WalletSignInFields & { signature: string };
}

/** One accepted payment (x402 "exact" payment requirements, built by the server from its configuration). */
export interface WalletPaymentRequirement {
  scheme: 'exact';
  network: `${string}:${string}`;
  /** Token units (USDC: 6 decimals). */
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
}

/** An x402 PaymentRequired object for the chosen amount and chain: what the wallet signs a payment for. */
export interface WalletTopUpRequirements {
  x402Version: 2;
  resource: { url: string; description: string; mimeType: string };
  accepts: WalletPaymentRequirement[];
  minimumUsd: number;
  maximumUsd: number;
  /**
   * Solana only: the payment transaction the server built for the signed-in wallet (base64 wire format, its own and
   * the fee payer's signatures still empty). The wallet signs it as it stands: the browser reads no chain state.
   */
  transaction?: string;
}

export interface WalletTopUpRequest {
  /** The x402 v2 payment payload the wallet signed (as an x402 client makes it). */
  payment: Record<string, unknown>;
}

export interface WalletTopUpResponse {
  amountCreditedUsd: number;
  /** The wallet's USD balance after the credit. */
  balanceUsd: number;
  network: string;
  transaction: string;
}

/** One pre-signed auto top-up authorization, as its owner sees it (never its signature). */
export interface AutoTopUpAuthorization {
  id: string;
  /** The order they are used in. */
  seq: number;
  /** The EIP-3009 nonce (what `cancelAuthorization` names on chain). */
  nonce: string;
  amountUsd: number;
  /** ready → claimed → settled, failed or expired; ready → revoked; revoked or expired → cancelled (on chain). */
  status: 'ready' | 'claimed' | 'settled' | 'failed' | 'expired' | 'revoked' | 'cancelled';
  /** Unix ms after which the chain refuses it. */
  validBefore: number;
  /** Settled: the transaction that paid it. */
  transaction: string | null;
  /** Failed: why. */
  error: string | null;
  /** Unix ms of its last change (settled: when it was used). */
  updatedAt: number;
}

/** A wallet's auto top-up: the mandate (null when none is set) and every authorization it signed. */
export interface AutoTopUpState {
  mandate: {
    thresholdUsd: number;
    amountUsd: number;
    /** At most this much auto top-up per period (null: only the signed authorizations' sum caps it). */
    periodCapUsd: number | null;
    periodDays: number | null;
    /** What the unused authorizations still allow (their sum). */
    remainingUsd: number;
    /** Auto top-ups in the current period (the last periodDays days). */
    periodUsedUsd: number;
    /** The last refused attempt (e.g. the wallet lacked the USDC), until one succeeds. */
    lastError: string | null;
  } | null;
  authorizations: AutoTopUpAuthorization[];
}

/** PUT /wallet/auto-top-up: the mandate and the authorizations the wallet signed for it (each of amountUsd). */
export interface AutoTopUpRequest {
  thresholdUsd: number;
  amountUsd: number;
  periodCapUsd?: number | null;
  periodDays?: number | null;
  /** x402 payment payloads (EIP-3009 authorizations to the server's Base recipient), as an x402 client makes them. */
  payments: Record<string, unknown>[];
}

/**
 * What a wallet signs (EIP-712, USDC's own domain) to cancel one of its discarded authorizations on chain: the message
 * is `{ authorizer, nonce }` for each nonce.
 */
export interface AutoTopUpCancelTemplate {
  domain: { name: string; version: string; chainId: number; verifyingContract: `0x${string}` };
  types: { CancelAuthorization: { name: string; type: string }[] };
  primaryType: 'CancelAuthorization';
  authorizer: string;
}

/** POST /wallet/auto-top-up/cancel: each nonce cancelled (transaction null: the chain had already used or cancelled it). */
export interface AutoTopUpCancelled {
  cancelled: { nonce: string; transaction: string | null }[];
}

/** DELETE /wallet/auto-top-up: what was discarded (the wallet may also cancel these nonces on chain). */
export interface AutoTopUpRevoked extends AutoTopUpState {
  discarded: { nonce: string; amountUsd: number }[];
}

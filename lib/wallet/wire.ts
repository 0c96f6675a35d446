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

// The Solana top-up transaction a browser wallet signs, built here on the server.
//
// Why the server builds it: an x402 Solana payment is a USDC transfer whose building needs chain state (the mint's
// token program and decimals, a recent blockhash). The browser app never talks to a chain RPC itself: the server's
// RPC endpoint (LAGOON_X402_SOLANA_RPC_URL) may carry a provider key, and proxying it to browsers would mean guarding
// every method and argument. So the server builds the transaction with the published @x402/svm client, exactly as
// any x402 client would, against its own RPC (two reads: the mint, the latest blockhash). The payer's slot is left
// empty (a no-op signer) and so is the fee payer's; the wallet shows the transfer, signs it as it stands, and the
// signed payment comes back through the same verification as any other (lib/wallet/payment.ts, the facilitator),
// which checks the transfer against this server's offer, so a transaction altered on the way is refused.
import { address, createNoopSigner } from '@solana/kit';
import type { PaymentRequirements } from '@x402/core/types';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { ApiError } from '../api/errors.ts';
import type { WalletConfig } from './config.ts';
import { log } from '../log.ts';

const RPC_TIMEOUT_MS = 15_000;

/** The unsigned payment transaction (base64 wire format) from `payer` for the Solana offer `offer`. */
export async function unsignedSolanaPayment(cfg: WalletConfig, offer: PaymentRequirements, payer: string): Promise<string> {
  const { rpcUrl } = cfg.solana;
  // Only a remote facilitator is configured: this server has no RPC of its own to build with (and never falls back
  // to a public one).
  if (!rpcUrl) throw new ApiError('X402_NOT_CONFIGURED', 'Solana top-ups from the browser need LAGOON_X402_SOLANA_RPC_URL on this server');
  const scheme = new ExactSvmScheme(createNoopSigner(address(payer)), { rpcUrl });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), RPC_TIMEOUT_MS);
  });
  try {
    const { payload } = await Promise.race([scheme.createPaymentPayload(2, offer), timeout]);
    const tx = (payload as { transaction?: unknown }).transaction;
    if (typeof tx !== 'string') throw new Error('no transaction built');
    return tx;
  } catch (e) {
    log.warn(`wallets: building a Solana payment failed: ${(e as Error).message}`);
    throw new ApiError('X402_NOT_CONFIGURED', 'The Solana network could not be reached to prepare the payment; try again in a moment');
  } finally {
    clearTimeout(timer);
  }
}

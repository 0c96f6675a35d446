// What this server accepts as payment: one x402 "exact" requirement per configured rail (USDC on Base, USDC on
// Solana), built from configuration alone. The amount is the only field a payment may choose (a top-up is any
// amount from the minimum to the maximum); every other field of a payment's `accepted` must equal these.
import type { PaymentRequirements } from '@x402/core/types';
import { UptoEvmScheme } from '@x402/evm/upto/server';
import type { WalletConfig } from './config.ts';

export type Rail = 'evm' | 'solana';

export function evmOffer(cfg: WalletConfig, amount: number): PaymentRequirements {
  const e = cfg.evm;
  return {
    scheme: 'exact',
    network: e.network as PaymentRequirements['network'],
    amount: String(amount),
    asset: e.asset,
    payTo: e.payTo,
    maxTimeoutSeconds: cfg.maxTimeoutSeconds,
    extra: { name: e.assetName, version: e.assetVersion },
  };
}

export function solanaOffer(cfg: WalletConfig, amount: number, feePayer: string): PaymentRequirements {
  const s = cfg.solana;
  return {
    scheme: 'exact',
    network: s.network as PaymentRequirements['network'],
    amount: String(amount),
    asset: s.asset,
    payTo: s.payTo,
    maxTimeoutSeconds: cfg.maxTimeoutSeconds,
    extra: { feePayer },
  };
}

/** The offers for a top-up of `amount` micro-USD; Solana only when a fee payer is known. */
export function offers(cfg: WalletConfig, amount: number, solanaFeePayer: string | undefined): PaymentRequirements[] {
  const out: PaymentRequirements[] = [];
  if (cfg.rails.evm) out.push(evmOffer(cfg, amount));
  if (cfg.rails.solana && solanaFeePayer) out.push(solanaOffer(cfg, amount, solanaFeePayer));
  return out;
}

/** Short chain names for humans and Venice-style bodies: base, base-sepolia, solana, solana-devnet. */
export function railNames(cfg: WalletConfig): string[] {
  const names: string[] = [];
  if (cfg.rails.evm) names.push(cfg.evm.chainId === 8453 ? 'base' : 'base-sepolia');
  if (cfg.rails.solana) names.push(cfg.solana.network.endsWith('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp') ? 'solana' : 'solana-devnet');
  return names;
}

const uptoServer = new UptoEvmScheme();

/**
 * Our EVM offer under x402's own `upto` scheme (Permit2), for a cap of `amount`: the package's server scheme adds
 * what its client signs with (the transfer method, and the facilitator the payer lets settle).
 */
export function evmUptoOffer(cfg: WalletConfig, amount: number, facilitatorAddress: string): Promise<PaymentRequirements> {
  const offer = { ...evmOffer(cfg, amount), scheme: 'upto' };
  return uptoServer.enhancePaymentRequirements(offer, { x402Version: 2, scheme: 'upto', network: offer.network, extra: { facilitatorAddress } }, []);
}

/**
 * The offers for a request paid on the spot: `exact` at its price, or `upto` with its cap (metered work). `upto` is
 * x402's own scheme on an EVM network with its contracts when the facilitator settles it (`uptoFacilitator`), and
 * elsewhere the exact scheme's payload for the cap (lib/wallet/per-request.ts says why).
 */
export async function requestOffers(
  cfg: WalletConfig,
  scheme: 'exact' | 'upto',
  amount: number,
  solanaFeePayer: string | undefined,
  uptoFacilitator: string | undefined,
): Promise<PaymentRequirements[]> {
  return Promise.all(
    offers(cfg, amount, solanaFeePayer).map((o) =>
      scheme === 'upto' && o.network === cfg.evm.network && uptoFacilitator ? evmUptoOffer(cfg, amount, uptoFacilitator) : { ...o, scheme },
    ),
  );
}

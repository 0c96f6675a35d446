// Reading the browser's top-up inputs: the amount asked for (USD, from the minimum to the maximum), and who signed a
// Solana payment (its payer must be the signed-in wallet before the payment goes anywhere near settlement).
import { getTransactionDecoder } from '@solana/kit';
import type { PaymentPayload } from '@x402/core/types';
import { ApiError } from '../api/errors.ts';
import { fromMicros } from '../billing/money.ts';
import type { WalletConfig } from './config.ts';

/** ?amount=<USD> in micro-USD; 400 unless a number of USD with at most 6 decimals within the top-up bounds. */
export function requestedAmount(raw: string | null, cfg: Pick<WalletConfig, 'minTopUp' | 'maxTopUp'>): number {
  if (raw === null || !/^\d{1,9}(\.\d{1,6})?$/.test(raw))
    throw new ApiError('INVALID_AMOUNT', 'amount must be a number of USD with at most 6 decimals', { param: 'amount' });
  const [whole, frac = ''] = raw.split('.');
  const micros = Number(whole) * 1_000_000 + Number(frac.padEnd(6, '0'));
  if (micros < cfg.minTopUp) throw new ApiError('AMOUNT_TOO_LOW', `The top-up amount must be at least ${fromMicros(cfg.minTopUp)} USD`, { param: 'amount' });
  if (micros > cfg.maxTopUp) throw new ApiError('AMOUNT_TOO_HIGH', `The top-up amount must be at most ${fromMicros(cfg.maxTopUp)} USD`, { param: 'amount' });
  return micros;
}

/** The addresses that signed a Solana payment's transaction, leaving out the fee payer (whose slot is still empty). */
export function solanaSigners(payload: PaymentPayload, feePayer: string | undefined): string[] {
  const tx = (payload.payload as { transaction?: unknown }).transaction;
  if (typeof tx !== 'string') return [];
  try {
    const { signatures } = getTransactionDecoder().decode(Buffer.from(tx, 'base64'));
    return Object.entries(signatures)
      .filter(([address, sig]) => address !== feePayer && sig !== null && sig.some((b) => b !== 0))
      .map(([address]) => address);
  } catch {
    return [];
  }
}

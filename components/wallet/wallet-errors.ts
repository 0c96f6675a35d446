// Wallet failures in words the user can act on: a signature refused in the wallet, an expired challenge, a payment
// that did not settle, an amount under the minimum; anything else keeps the server's or wallet's own message.
import type { useTranslations } from 'use-intl';
import { AppApiError } from '@/components/api/client.ts';

/** The wallet messages' translator (`useTranslations('walletErrors')`). */
export type WalletT = ReturnType<typeof useTranslations<'walletErrors'>>;

/** A failure found in the browser (the wallet gone, no account shared, …), worded by describeWalletError. */
export class WalletProblem extends Error {
  readonly reason: 'gone' | 'noAccount' | 'cannotSignSolana' | 'noPayment' | 'switchAccount';
  readonly values: Record<string, string>;
  constructor(reason: WalletProblem['reason'], values: Record<string, string> = {}) {
    super(reason);
    this.reason = reason;
    this.values = values;
  }
}

/** EIP-1193 4001, wagmi/viem's UserRejectedRequestError, and wallet-standard wallets' own wording. */
export function isRejection(err: unknown): boolean {
  for (let e = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (e.code === 4001 || e.name === 'UserRejectedRequestError') return true;
    if (typeof e.message === 'string' && /user (rejected|denied|cancel)|rejected the request|request rejected/i.test(e.message)) return true;
  }
  return false;
}

export function describeWalletError(err: unknown, action: 'sign-in' | 'top-up', t: WalletT): string {
  if (isRejection(err)) return action === 'sign-in' ? t('declinedSignIn') : t('declinedPayment');
  if (err instanceof WalletProblem) return t(err.reason, err.values as never);
  if (err instanceof AppApiError) {
    switch (err.code) {
      case 'X402_SIGN_IN_EXPIRED':
      case 'X402_SIGN_IN_INVALID_NONCE':
      case 'X402_SIGN_IN_NONCE_REUSED':
        return t('expired');
      case 'X402_SIGN_IN_INVALID_SIGNATURE':
        return t('badSignature');
      case 'AMOUNT_TOO_LOW':
        return t('tooLow');
      case 'AMOUNT_TOO_HIGH':
        return err.message;
      case 'SETTLEMENT_FAILED':
      case 'PAYMENT_VERIFICATION_FAILED':
        return `${t('notSettled')} ${reasonOf(err, t)}`.trim();
      case 'SETTLEMENT_TIMEOUT':
        return t('timeout');
      case 'PAYMENT_ALREADY_CREDITED':
        return t('alreadyCredited');
      case 'X402_WALLET_MISMATCH':
        return t('otherAccount');
      default:
        return err.message;
    }
  }
  return err instanceof Error && err.message ? err.message : t('generic');
}

function reasonOf(err: AppApiError, t: WalletT): string {
  const details = err.body.details as { reason?: unknown } | undefined;
  const reason = typeof details?.reason === 'string' ? details.reason.replace(/_/g, ' ') : '';
  return reason ? t('reason', { reason }) : '';
}

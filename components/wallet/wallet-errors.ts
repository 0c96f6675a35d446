// Wallet failures in words the user can act on: a signature refused in the wallet, an expired challenge, a payment
// that did not settle, an amount under the minimum; anything else keeps the server's or wallet's own message.
import { AppApiError } from '@/components/api/client.ts';

/** EIP-1193 4001, wagmi/viem's UserRejectedRequestError, and wallet-standard wallets' own wording. */
export function isRejection(err: unknown): boolean {
  for (let e = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (e.code === 4001 || e.name === 'UserRejectedRequestError') return true;
    if (typeof e.message === 'string' && /user (rejected|denied|cancel)|rejected the request|request rejected/i.test(e.message)) return true;
  }
  return false;
}

export function describeWalletError(err: unknown, action: 'sign-in' | 'top-up'): string {
  if (isRejection(err))
    return action === 'sign-in'
      ? 'You declined the signature in your wallet, so you are not signed in.'
      : 'You declined the payment in your wallet. Nothing was charged.';
  if (err instanceof AppApiError) {
    switch (err.code) {
      case 'X402_SIGN_IN_EXPIRED':
      case 'X402_SIGN_IN_INVALID_NONCE':
      case 'X402_SIGN_IN_NONCE_REUSED':
        return 'The sign-in request expired before it was signed. Try again and sign the new request.';
      case 'X402_SIGN_IN_INVALID_SIGNATURE':
        return 'The wallet’s signature could not be verified. Try again, or use another wallet.';
      case 'AMOUNT_TOO_LOW':
        return 'The smallest top-up is 5 USD.';
      case 'AMOUNT_TOO_HIGH':
        return err.message;
      case 'SETTLEMENT_FAILED':
      case 'PAYMENT_VERIFICATION_FAILED':
        return `The payment could not be settled, so nothing was charged or credited. ${reasonOf(err)}`.trim();
      case 'SETTLEMENT_TIMEOUT':
        return 'The payment was sent but not confirmed in time. It is credited once it confirms; check your balance shortly.';
      case 'PAYMENT_ALREADY_CREDITED':
        return 'This payment has already been credited.';
      case 'X402_WALLET_MISMATCH':
        return 'The payment was signed by another account. Switch your wallet to the account you signed in with and try again.';
      default:
        return err.message;
    }
  }
  return err instanceof Error && err.message ? err.message : 'Something went wrong with the wallet. Please try again.';
}

function reasonOf(err: AppApiError): string {
  const details = err.body.details as { reason?: unknown } | undefined;
  const reason = typeof details?.reason === 'string' ? details.reason.replace(/_/g, ' ') : '';
  return reason ? `(Reason: ${reason}.)` : '';
}

// Who may become the operator. The first sign-up used to be the operator, so a freshly exposed server belonged to
// whoever found it first (issue 28). Now a sign-up becomes the operator only while there is none and only when it
// carries the setup token: LAGOON_OPERATOR_TOKEN, or, unset, one derived from the database's own secret (the same
// on every instance) that the server logs as a link while no operator exists (LiteLLM's master-key model; Jupyter's
// token link). Any other sign-up is an ordinary user.
import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import { sign } from '../auth/server-secret.ts';
import type { Store } from '../db/store.ts';

/** The token that makes a sign-up the operator. */
export async function operatorSetupToken(store: Store, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  return (await sign(store, 'operator-setup', 'lagoon-operator-setup-v1')).slice(0, 32);
}

/** Whether an operator exists (an email user marked admin). */
export async function operatorExists(store: Store): Promise<boolean> {
  return (await store.get('SELECT id FROM users WHERE is_admin = TRUE AND wallet_id IS NULL LIMIT 1')) !== undefined;
}

/**
 * Whether this sign-up is to be the operator: it carries a setup token, which must be the server's (403 otherwise, so
 * a mistyped link is not silently an ordinary account). signUp() still checks, under its lock, that none exists yet.
 */
export async function claimsOperator(store: Store, configured: string | undefined, given: unknown): Promise<boolean> {
  if (given === undefined || given === null || given === '') return false;
  const expected = Buffer.from(await operatorSetupToken(store, configured));
  const got = Buffer.from(typeof given === 'string' ? given : '');
  if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
    throw new ApiError('FORBIDDEN', 'The setup token is not this server’s: use the link the server logged at start, or LAGOON_OPERATOR_TOKEN');
  }
  return true;
}

/** The sign-up page's link that makes its user the operator. */
export const setupLink = (origin: string, token: string): string => `${origin}/sign-up?setup=${encodeURIComponent(token)}`;

// Wallet routes of the browser app: Sign-In-With-X once, then the same session cookie as email sign-in (design note
// x402-and-siwx.md §3.6), and USDC top-ups signed in the wallet. Verification, nonces and crediting are lib/wallet's,
// the very code behind /api/v1/x402/*; these handlers only add the session, the CSRF check and the payer check.
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { getAddress } from 'viem';
import { ApiError } from '../api/errors.ts';
import { fromMicros } from '../billing/money.ts';
import { ensureWalletUser, findWalletUser } from '../users/wallet-users.ts';
import { applyStartingCredit } from '../users/starting-credit.ts';
import { linkWallet, unlinkWallet } from '../users/wallet-link.ts';
import { getUser } from '../users/users.ts';
import { toAppUser } from '../conversations/present.ts';
import { readPayment } from './payment.ts';
import { formatSignInMessage } from './siwx-message.ts';
import { unsignedSolanaPayment } from './solana-transaction.ts';
import { EVM_ADDRESS, SOLANA_ADDRESS } from './networks.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { z } from 'zod';
import { appRoute, json, type SessionCtx } from '../http/app-route.ts';
import type { MeResponse, WalletChain, WalletChallenge, WalletSignInFields, WalletTopUpRequirements, WalletTopUpResponse } from '../wire.ts';
import { startSession } from '../users/session-start.ts';
import { requestedAmount, solanaSigners } from './app-payment.ts';
import { autoTopUpBody } from './auto-topup.ts';
import { cancelBody, cancelTypedData } from './auto-topup-cancel.ts';
import { findWallet } from './wallets.ts';
import type { AutoTopUpCancelled, AutoTopUpCancelTemplate, AutoTopUpRevoked, AutoTopUpState } from './wire.ts';

/** The sign-in challenges' URI: the route they are redeemed at, on the public origin. */
export const WALLET_SIGN_IN_PATH = '/api/app/wallet/sign-in';
const TOP_UP_PATH = '/api/app/wallet/top-up';
const AUTO_TOP_UP_PATH = '/api/app/wallet/auto-top-up';
const BODY_LIMIT = 64 * 1024;

/** The signed challenge (its fields are checked by the SIGN-IN-WITH-X verifier) and the signed x402 payment. */
const signedObject = (what: string) =>
  z.custom<object>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), { error: `must be the signed ${what}` });
const signInBody = z.object({ payload: signedObject('challenge') });
const topUpBody = z.object({ payment: signedObject('x402 payment') });

function chainOf(raw: string | null): WalletChain {
  if (raw === 'evm' || raw === 'solana') return raw;
  throw new ApiError('INVALID_REQUEST', 'chain must be "evm" or "solana"', { param: 'chain' });
}

const FIELD_NAMES = ['domain', 'address', 'statement', 'uri', 'version', 'chainId', 'type', 'nonce', 'issuedAt', 'expirationTime', 'signature'] as const;

export function walletRoutes(deps: AppDeps) {
  const { svc } = deps;
  const wallets = svc.wallet;

  /** The session's wallet: its own, or the email user's linked one (403 for an email user without a wallet). */
  function walletUser(s: SessionCtx) {
    const wallet = s.user.wallet ?? s.user.linkedWallet;
    if (!wallet) throw new ApiError('FORBIDDEN', 'Top-ups are for users with a wallet: link one in Settings');
    return { ...s, wallet };
  }

  /** The SIGN-IN-WITH-X header an API client would send for this signed challenge (only the known fields travel on). */
  function headerOf(p: object): string {
    const picked: Record<string, unknown> = {};
    for (const k of FIELD_NAMES) if ((p as Record<string, unknown>)[k] !== undefined) picked[k] = (p as Record<string, unknown>)[k];
    return Buffer.from(JSON.stringify(picked)).toString('base64');
  }

  /** The session's wallet record (its account and id), for auto top-up. */
  async function fullWallet(s: SessionCtx) {
    const { wallet } = walletUser(s);
    const found = await findWallet(svc.store, wallet.namespace, wallet.address);
    if (!found) throw new ApiError('FORBIDDEN', 'Top-ups are for users with a wallet: link one in Settings');
    return found;
  }

  function cancelTemplate(address: string): AutoTopUpCancelTemplate {
    const { domain, types, primaryType } = cancelTypedData(wallets.settings, address, `0x${'0'.repeat(64)}`);
    return { domain, types, primaryType, authorizer: address };
  }

  return {
    /**
     * The mandate, and what the wallet signs each authorization against (with ?amount=<USD>, as a top-up's; without
     * it, as the form lists the mandate, toSign is null).
     */
    walletAutoTopUp: appRoute(deps, 'session', async ({ req, session }) => {
      const wallet = await fullWallet(session);
      const raw = new URL(req.url).searchParams.get('amount');
      const amount = raw === null ? undefined : requestedAmount(raw, wallets.settings);
      const base = wallet.namespace === 'eip155' && wallets.settings.rails.evm;
      const requirement = base && amount !== undefined ? wallets.autoTopUpRequirement(amount) : undefined;
      const toSign: WalletTopUpRequirements | null = requirement
        ? {
            x402Version: 2,
            resource: { url: wallets.url(AUTO_TOP_UP_PATH), description: 'Lagoon auto top-up', mimeType: 'application/json' },
            accepts: [requirement as WalletTopUpRequirements['accepts'][number]],
            minimumUsd: fromMicros(wallets.settings.minTopUp),
            maximumUsd: fromMicros(wallets.settings.maxTopUp),
          }
        : null;
      // What the wallet signs to cancel a discarded authorization on chain (its message: this wallet and the nonce).
      const toCancel: AutoTopUpCancelTemplate | null = base ? cancelTemplate(wallet.address) : null;
      return json<AutoTopUpState & { toSign: WalletTopUpRequirements | null; toCancel: AutoTopUpCancelTemplate | null }>({
        ...(await wallets.autoTopUp(wallet)),
        toSign,
        toCancel,
      });
    }),

    walletSetAutoTopUp: appRoute(deps, { auth: 'session+csrf', body: autoTopUpBody, bodyLimit: BODY_LIMIT }, async ({ session, body }) => {
      return json<AutoTopUpState>(await wallets.setAutoTopUp(await fullWallet(session), body));
    }),

    walletRevokeAutoTopUp: appRoute(deps, 'session+csrf', async ({ session }) => {
      return json<AutoTopUpRevoked>(await wallets.revokeAutoTopUp(await fullWallet(session)));
    }),

    /** The wallet's signed cancellations of its discarded authorizations, submitted on chain (auto-topup-cancel.ts). */
    walletCancelAutoTopUps: appRoute(deps, { auth: 'session+csrf', body: cancelBody, bodyLimit: BODY_LIMIT }, async ({ session, body }) => {
      return json<AutoTopUpCancelled>({ cancelled: await wallets.cancelAutoTopUps(await fullWallet(session), body) });
    }),

    walletChallenge: appRoute(deps, 'none', async ({ req }) => {
      const q = new URL(req.url).searchParams;
      const chain = chainOf(q.get('chain'));
      const raw = q.get('address') ?? '';
      const valid = chain === 'evm' ? EVM_ADDRESS.test(raw) : SOLANA_ADDRESS.test(raw);
      if (!valid)
        throw new ApiError('INVALID_REQUEST', `address must be ${chain === 'evm' ? 'an EVM (0x…)' : 'a Solana (base58)'} address`, { param: 'address' });
      // Wallets display and sign EVM addresses in their checksummed form; the server rebuilds the text the same way.
      const address = chain === 'evm' ? getAddress(raw.toLowerCase()) : raw;
      const { info } = await wallets.challenge(WALLET_SIGN_IN_PATH);
      const s = wallets.settings;
      const fields: WalletSignInFields = {
        ...info,
        address,
        chainId: chain === 'evm' ? s.evm.network : s.solana.network,
        type: chain === 'evm' ? 'eip191' : 'ed25519',
      };
      const namespace = chain === 'evm' ? 'eip155' : 'solana';
      const message = formatSignInMessage(namespace, { ...fields, chainReference: fields.chainId.slice(fields.chainId.indexOf(':') + 1) });
      const body: WalletChallenge = { message, fields };
      return json(body);
    }),

    walletSignIn: appRoute(deps, { auth: 'origin', body: signInBody, bodyLimit: BODY_LIMIT }, async ({ req, body }) => {
      const signed = await wallets.signIn(headerOf(body.payload));
      // A wallet newcomer gets the same free daily DIEM as an email sign-up, so their first message can go through.
      // Not the one-off USD grant: a wallet costs nothing to make, and it tops up in USDC on its own.
      const known = await findWalletUser(svc.store, signed.wallet.id);
      const user = known ?? (await ensureWalletUser(svc.store, signed.wallet));
      if (!known) await applyStartingCredit(svc.store, user.accountId, { usd: 0, diemDaily: deps.app.startingCredit.diemDaily });
      return startSession(deps, req, user, 200);
    }),

    // Settings: a signed-in email user links a wallet by signing the same challenge as a wallet sign-in
    // (lib/users/wallet-link.ts has the rules: a wallet with an account of its own links only when that is empty).
    walletLink: appRoute(deps, { auth: 'session+csrf', body: signInBody, bodyLimit: BODY_LIMIT }, async ({ session: { user, csrfToken }, body }) => {
      const claim = await wallets.verifySignIn(headerOf(body.payload));
      await linkWallet(svc.store, user, { namespace: claim.namespace, address: claim.address });
      const updated = await getUser(svc.store, user.id);
      return json<MeResponse>({ user: toAppUser(updated ?? user), csrfToken });
    }),

    walletUnlink: appRoute(deps, 'session+csrf', async ({ session: { user, csrfToken } }) => {
      await unlinkWallet(svc.store, user);
      const updated = await getUser(svc.store, user.id);
      return json<MeResponse>({ user: toAppUser(updated ?? user), csrfToken });
    }),

    walletTopUpRequirements: appRoute(deps, 'session', async ({ req, session }) => {
      const { wallet } = walletUser(session);
      const q = new URL(req.url).searchParams;
      const chain = chainOf(q.get('chain'));
      // Only the signed-in wallet may pay (see walletTopUp), so only its own chain is offered.
      if ((chain === 'evm') !== (wallet.namespace === 'eip155'))
        throw new ApiError(
          'X402_WALLET_MISMATCH',
          `You signed in with a ${wallet.namespace === 'eip155' ? 'Base (EVM)' : 'Solana'} wallet: top up from that wallet`,
        );
      const amount = requestedAmount(q.get('amount'), wallets.settings);
      const network = chain === 'evm' ? wallets.settings.evm.network : wallets.settings.solana.network;
      const accepts = (await wallets.offers(amount)).filter((a) => a.network === network);
      if (!accepts.length) throw new ApiError('X402_NOT_CONFIGURED', `Top-ups with ${chain === 'evm' ? 'Base' : 'Solana'} USDC are not enabled on this server`);
      const { minTopUp, maxTopUp } = wallets.settings;
      const body: WalletTopUpRequirements = {
        x402Version: 2,
        resource: { url: wallets.url(TOP_UP_PATH), description: 'Lagoon credit top-up', mimeType: 'application/json' },
        accepts: accepts as WalletTopUpRequirements['accepts'],
        minimumUsd: fromMicros(minTopUp),
        maximumUsd: fromMicros(maxTopUp),
        // The browser reads no chain state, so a Solana wallet gets the transaction to sign ready-made.
        ...(chain === 'solana' ? { transaction: await unsignedSolanaPayment(wallets.settings, accepts[0], wallet.address) } : {}),
      };
      return json(body);
    }),

    walletTopUp: appRoute(deps, { auth: 'session+csrf', body: topUpBody, bodyLimit: BODY_LIMIT }, async ({ session, body }) => {
      const { wallet } = walletUser(session);
      const payment = body.payment;
      const header = encodePaymentSignatureHeader(payment as unknown as PaymentPayload);
      // The payer must be this session's wallet, checked before anything is settled: a top-up credits whoever paid,
      // and crediting another wallet from this session would surprise both.
      const feePayer = async () =>
        (await wallets.offers(wallets.settings.minTopUp)).find((o) => typeof o.extra?.feePayer === 'string')?.extra?.feePayer as string | undefined;
      const p = await readPayment(header, wallets.settings, feePayer);
      const payers = p.rail === 'evm' ? [p.payer?.toLowerCase()] : solanaSigners(p.payload, await feePayer());
      const own = p.rail === 'evm' ? wallet.namespace === 'eip155' : wallet.namespace === 'solana';
      if (!own || !payers.includes(wallet.address))
        throw new ApiError('X402_WALLET_MISMATCH', 'The payment must be signed by the wallet you are signed in with');
      const result = await wallets.topUp(header);
      const out: WalletTopUpResponse = {
        amountCreditedUsd: fromMicros(result.amount),
        balanceUsd: fromMicros(result.balance),
        network: result.settlement.network,
        transaction: result.settlement.transaction,
      };
      return json(out);
    }),
  };
}

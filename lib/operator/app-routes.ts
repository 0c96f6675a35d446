// The operator's routes (the first user, the operator admin, only; anyone else gets 403): every account with its
// balances, live keys, 30 days' spend and tier; granting USD credit, setting the daily DIEM allowance and the tier,
// disabling and enabling an account (what `npx lagoon` does on the server, through the same ledger and account
// functions), each written to the audit log with who did it. A disabled account's credentials are refused where
// each is authenticated (lib/accounts/accounts.ts refuseDisabledAccount); cached principals are dropped at once.
import { z } from 'zod';
import { getAccount, setAccountDisabled, setAccountTier } from '../accounts/accounts.ts';
import { type AccountOverview, type AuditAction, accountOverview, listAudit, recordAudit } from '../accounts/operator.ts';
import { ApiError } from '../api/errors.ts';
import { forgetPrincipals } from '../auth/keys.ts';
import { grantUsd, setDiemDaily } from '../billing/ledger.ts';
import { fromMicros, toMicros } from '../billing/money.ts';
import { resetPassword } from '../users/passwords.ts';
import { clearSecondFactors } from '../users/totp.ts';
import { toUser, type User, USER_COLUMNS, type UserRow } from '../users/users.ts';
import { forgetWalletPrincipals } from '../wallet/wallets.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json } from '../http/app-route.ts';
import type { OperatorAccount, OperatorAccountsPage, OperatorAuditPage, PasswordReset, SecondFactorCleared } from '../wire.ts';
import { idParam, intParam, queryOf, totalPages } from '../api/dash-query.ts';

const BODY_LIMIT = 16 * 1024;
/** The most one grant adds, and the highest daily allowance (typos of a few zeros are refused, not credited). */
export const GRANT_MAX_USD = 1_000_000;
export const DIEM_DAILY_MAX = 1_000_000;

/** The operator is the first email user (lib/users/users.ts signUp); wallet users never are. */

const accountsQuery = z.strictObject({ q: z.string().trim().max(200).optional(), page: intParam(1, 1_000_000, 1), limit: intParam(1, 100, 25) });
const auditQuery = z.strictObject({ accountId: idParam.optional(), page: intParam(1, 1_000_000, 1), limit: intParam(1, 200, 50) });
const grantBody = z.strictObject({
  usd: z.number().gt(0, 'must be more than 0').max(GRANT_MAX_USD),
  note: z.string().trim().max(200).optional(),
});
const patchBody = z
  .strictObject({
    diemDaily: z.number().min(0).max(DIEM_DAILY_MAX).optional(),
    tier: z.enum(['default', 'partner']).optional(),
    disabled: z.boolean().optional(),
  })
  .refine((b) => b.diemDaily !== undefined || b.tier !== undefined || b.disabled !== undefined, { message: 'Give diemDaily, tier or disabled' });

const toWire = (a: AccountOverview): OperatorAccount => ({
  id: a.id,
  name: a.name,
  tier: a.tier === 'partner' ? 'partner' : 'default',
  createdAt: a.createdAt,
  disabledAt: a.disabledAt,
  balances: { usd: fromMicros(a.usd), diem: fromMicros(a.diem), diemDaily: fromMicros(a.diemDaily) },
  keys: a.keys,
  spent30Days: { usd: fromMicros(a.spentUsd), diem: fromMicros(a.spentDiem) },
  email: a.email,
  wallet: a.wallet,
  operator: a.operator,
});

export function operatorRoutes(deps: AppDeps) {
  const { store } = deps.svc;

  async function accountOf(id: string): Promise<OperatorAccount> {
    const { accounts } = await accountOverview(store, { id, page: 1, limit: 1 });
    if (!accounts[0]) throw new ApiError('NOT_FOUND', 'Account not found');
    return toWire(accounts[0]);
  }

  const audit = (actor: User, action: AuditAction, accountId: string, details: Record<string, unknown>) =>
    recordAudit(store, { actorUserId: actor.id, actor: actor.email, action, accountId, details });

  return {
    operatorAccounts: appRoute(deps, 'operator', async ({ req }) => {
      const q = queryOf(deps, accountsQuery, req);
      const { accounts, total } = await accountOverview(store, { search: q.q || undefined, page: q.page, limit: q.limit });
      const body: OperatorAccountsPage = { accounts: accounts.map(toWire), total, page: q.page, limit: q.limit, totalPages: totalPages(total, q.limit) };
      return json(body);
    }),

    operatorGrant: appRoute(deps, { auth: 'operator+csrf', body: grantBody, bodyLimit: BODY_LIMIT }, async ({ params, session: { user }, body }) => {
      if (!(await getAccount(store, params.id))) throw new ApiError('NOT_FOUND', 'Account not found');
      const micros = toMicros(body.usd);
      if (micros <= 0) throw new ApiError('INVALID_REQUEST', 'usd: must be at least 0.000001', { param: 'usd' });
      const note = body.note || `operator grant by ${user.email}`;
      await grantUsd(store, params.id, micros, note);
      await audit(user, 'grant', params.id, { usd: fromMicros(micros), note });
      return json({ account: await accountOf(params.id) });
    }),

    operatorUpdate: appRoute(deps, { auth: 'operator+csrf', body: patchBody, bodyLimit: BODY_LIMIT }, async ({ params, session: { user }, body }) => {
      const account = await getAccount(store, params.id);
      if (!account) throw new ApiError('NOT_FOUND', 'Account not found');
      if (body.disabled === true && account.id === user.accountId) {
        throw new ApiError('INVALID_REQUEST', 'You cannot disable your own account: you would lose the operator pages', { param: 'disabled' });
      }
      if (body.diemDaily !== undefined) {
        const b = await setDiemDaily(store, account.id, toMicros(body.diemDaily));
        await audit(user, 'diem_daily', account.id, { diemDaily: fromMicros(b.diemDaily) });
      }
      if (body.tier !== undefined && body.tier !== account.tier) {
        await setAccountTier(store, account.id, body.tier);
        // The tier travels in cached principals: drop them so the new limits apply at once.
        forgetPrincipals(store);
        forgetWalletPrincipals(store);
        await audit(user, 'tier', account.id, { from: account.tier, to: body.tier });
      }
      if (body.disabled !== undefined && body.disabled !== (account.disabledAt !== null)) {
        await setAccountDisabled(store, account.id, body.disabled);
        forgetPrincipals(store);
        forgetWalletPrincipals(store);
        await audit(user, body.disabled ? 'disable' : 'enable', account.id, {});
      }
      return json({ account: await accountOf(account.id) });
    }),

    // A temporary password for the account's email user, shown to the operator once; all their sessions end. Wallet
    // accounts have no password. The operator resets their own in Account, with their current password.
    operatorResetPassword: appRoute(deps, 'operator+csrf', async ({ params, session: { user } }) => {
      if (!(await getAccount(store, params.id))) throw new ApiError('NOT_FOUND', 'Account not found');
      const row = await store.get<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.account_id = $1 AND u.wallet_id IS NULL`, [params.id]);
      if (!row) throw new ApiError('INVALID_REQUEST', 'This account has no app user with a password (a wallet or API-only account)', { param: 'id' });
      const target = toUser(row);
      if (target.id === user.id) throw new ApiError('INVALID_REQUEST', 'Change your own password in Account, with your current password', { param: 'id' });
      const { password, sessionsEnded } = await resetPassword(store, target);
      await audit(user, 'password_reset', params.id, { email: target.email, sessionsEnded });
      const body: PasswordReset = { email: target.email, temporaryPassword: password, sessionsEnded };
      return json(body);
    }),

    // Clears the second factors (TOTP with its recovery codes, every passkey) of the account's email user, who lost
    // them: the browser asks the operator to confirm first. The password stays. Recorded with what was cleared.
    operatorClearSecondFactor: appRoute(deps, 'operator+csrf', async ({ params, session: { user } }) => {
      if (!(await getAccount(store, params.id))) throw new ApiError('NOT_FOUND', 'Account not found');
      const row = await store.get<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.account_id = $1 AND u.wallet_id IS NULL`, [params.id]);
      if (!row) throw new ApiError('INVALID_REQUEST', 'This account has no app user with a second factor (a wallet or API-only account)', { param: 'id' });
      const target = toUser(row);
      if (target.id === user.id) throw new ApiError('INVALID_REQUEST', 'Manage your own two-step sign-in and passkeys in Settings', { param: 'id' });
      const cleared = await clearSecondFactors(store, target.id);
      await audit(user, 'second_factor_clear', params.id, { email: target.email, ...cleared });
      const body: SecondFactorCleared = { email: target.email, ...cleared };
      return json(body);
    }),

    operatorAudit: appRoute(deps, 'operator', async ({ req }) => {
      const q = queryOf(deps, auditQuery, req);
      const { entries, total } = await listAudit(store, q);
      const body: OperatorAuditPage = {
        entries: entries.map((e) => ({ id: e.id, actor: e.actor, action: e.action, accountId: e.accountId, details: e.details, at: e.at })),
        total,
        page: q.page,
        limit: q.limit,
        totalPages: totalPages(total, q.limit),
      };
      return json(body);
    }),
  };
}

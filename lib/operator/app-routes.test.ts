// The operator's routes on a real service, SQLite and PostgreSQL: only the first user may use them; every account
// with its balances, keys and spend; a grant credits the account once (and is on its statement); the DIEM allowance
// and the tier change; disabling an account refuses its API keys, its browser sessions, its sign-ins and its wallet
// at once, and enabling it restores them; the operator cannot lock themself out; every action is in the audit log.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { post } from '../../e2e/support/harness.ts';
import { ACCOUNT_DISABLED_MESSAGE } from '../accounts/accounts.ts';
import { createSession, SESSION_COOKIE } from '../users/sessions.ts';
import { ensureWalletUser } from '../users/wallet-users.ts';
import { ensureWallet, walletPrincipal } from '../wallet/wallets.ts';
import type { OperatorAccount, OperatorAccountsPage, OperatorAuditPage, StatementPage } from '../wire.ts';
import { appRequest } from '../../e2e/support/app-requests.ts';
import { apiChat, BACKENDS, type Dash, type DashUser, startDash } from '../../e2e/support/app-dash.ts';

for (const backend of BACKENDS)
  describe(`operator routes (${backend})`, () => {
    let d: Dash;
    let op: DashUser;
    let bob: DashUser;
    let bobKey: { id: string; secret: string };

    before(async () => {
      d = await startDash(backend);
      op = await d.newUser(0);
      bob = await d.newUser(1);
      bobKey = await d.newKey(bob, 'INFERENCE', 'bob key');
      await apiChat(d.h, bobKey.secret);
      await d.h.svc.ledger.drain();
    });
    after(() => d?.close());

    const accounts = async (query = '') => {
      const r = await d.call(d.routes.operatorAccounts, `/operator/accounts${query}`, { browser: op.browser });
      assert.equal(r.status, 200, r.text);
      return r.json as OperatorAccountsPage;
    };
    const patch = (id: string, body: unknown, who = op) =>
      d.call(d.routes.operatorUpdate, `/operator/accounts/${id}`, { method: 'PATCH', body, browser: who.browser }, { id });
    const grant = (id: string, body: unknown, who = op) =>
      d.call(d.routes.operatorGrant, `/operator/accounts/${id}/grant`, { method: 'POST', body, browser: who.browser }, { id });
    const audit = async () => {
      const r = await d.call(d.routes.operatorAudit, '/operator/audit', { browser: op.browser });
      assert.equal(r.status, 200, r.text);
      return r.json as OperatorAuditPage;
    };

    test('only the operator: anyone else is refused (403) on every operator route', async () => {
      assert.equal(op.user.isAdmin, true);
      const id = op.user.accountId;
      for (const r of [
        await d.call(d.routes.operatorAccounts, '/operator/accounts', { browser: bob.browser }),
        await d.call(d.routes.operatorAudit, '/operator/audit', { browser: bob.browser }),
        await grant(id, { usd: 5 }, bob),
        await patch(id, { tier: 'partner' }, bob),
      ]) {
        assert.equal(r.status, 403, r.text);
      }
      assert.equal((await d.call(d.routes.operatorAccounts, '/operator/accounts')).status, 401);
    });

    test('every account with balances, live keys, spend and owner; search and pages', async () => {
      const page = await accounts();
      assert.equal(page.total, 2);
      const b = page.accounts.find((a) => a.id === bob.user.accountId)!;
      assert.equal(b.email, bob.email);
      assert.equal(b.operator, false);
      assert.equal(b.keys, 2, 'the app’s key and bob key');
      assert.ok(b.spent30Days.usd > 0 && b.balances.usd < 1 && b.balances.usd > 0);
      assert.equal(page.accounts.find((a) => a.id === op.user.accountId)?.operator, true);
      assert.deepEqual(
        (await accounts(`?q=${encodeURIComponent(bob.email.toUpperCase())}`)).accounts.map((a) => a.id),
        [bob.user.accountId],
      );
      assert.equal((await accounts('?q=%25')).total, 0, 'LIKE wildcards are literal');
      const one = await accounts('?limit=1&page=2');
      assert.equal(one.accounts.length, 1);
      assert.equal(one.totalPages, 2);
      for (const q of ['?limit=0', '?page=0', '?x=1', `?q=${'a'.repeat(201)}`]) {
        assert.equal((await d.call(d.routes.operatorAccounts, `/operator/accounts${q}`, { browser: op.browser })).status, 400, q);
      }
    });

    test('a grant credits the account once, is on its statement, and is audited; bad grants are refused', async () => {
      const before = (await accounts()).accounts.find((a) => a.id === bob.user.accountId)!;
      const r = await grant(bob.user.accountId, { usd: 5, note: 'welcome back' });
      assert.equal(r.status, 200, r.text);
      const after = r.json.account as OperatorAccount;
      assert.ok(Math.abs(after.balances.usd - (before.balances.usd + 5)) < 1e-9);
      const st = await d.call(d.routes.billingStatement, '/billing/statement?kind=grant', { browser: bob.browser });
      assert.ok((st.json as StatementPage).entries.some((e) => e.credit?.usd === 5 && e.credit.note === 'welcome back'));
      for (const body of [{ usd: 0 }, { usd: -5 }, { usd: '5' }, { usd: 2_000_000 }, { usd: 5, note: 'n'.repeat(201) }, { usd: 5, extra: true }, {}]) {
        const bad = await grant(bob.user.accountId, body);
        assert.equal(bad.status, 400, JSON.stringify(body));
      }
      assert.equal((await grant('no-such-account', { usd: 5 })).status, 404);
      const noCsrf = await d.call(
        d.routes.operatorGrant,
        `/operator/accounts/${bob.user.accountId}/grant`,
        { method: 'POST', body: { usd: 5 }, browser: op.browser, noCsrf: true },
        { id: bob.user.accountId },
      );
      assert.equal(noCsrf.status, 403);
      const final = (await accounts()).accounts.find((a) => a.id === bob.user.accountId)!;
      assert.ok(Math.abs(final.balances.usd - after.balances.usd) < 1e-9, 'refused grants moved nothing');
      const [latest] = (await audit()).entries;
      assert.deepEqual(
        [latest.actor, latest.action, latest.accountId, latest.details],
        [op.email, 'grant', bob.user.accountId, { usd: 5, note: 'welcome back' }],
      );
    });

    test('the daily DIEM allowance and the tier; bad patches are refused', async () => {
      const r = await patch(bob.user.accountId, { diemDaily: 3, tier: 'partner' });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.account.balances.diemDaily, 3);
      assert.equal(r.json.account.balances.diem, 3);
      assert.equal(r.json.account.tier, 'partner');
      const actions = (await audit()).entries.slice(0, 2).map((e) => e.action);
      assert.deepEqual(new Set(actions), new Set(['diem_daily', 'tier']));
      for (const body of [{}, { tier: 'gold' }, { diemDaily: -1 }, { disabled: 'yes' }, { other: 1 }]) {
        assert.equal((await patch(bob.user.accountId, body)).status, 400, JSON.stringify(body));
      }
      assert.equal((await patch('no-such-account', { tier: 'default' })).status, 404);
      assert.equal((await patch(bob.user.accountId, { tier: 'default' })).json.account.tier, 'default');
    });

    test('disabling refuses the account’s keys, sessions, sign-ins and wallet at once; enabling restores them', async () => {
      const r = await patch(bob.user.accountId, { disabled: true });
      assert.equal(r.status, 200, r.text);
      assert.ok(r.json.account.disabledAt > 0);

      const chat = await post(d.h, '/chat/completions', bobKey.secret, { model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(chat.status, 403, chat.text);
      assert.equal(chat.json.error, ACCOUNT_DISABLED_MESSAGE);
      const session = await d.call(d.routes.account, '/account', { browser: bob.browser });
      assert.equal(session.status, 403);
      assert.equal(session.json.error, ACCOUNT_DISABLED_MESSAGE);
      const me = await d.call(d.routes.me, '/auth/me', { browser: bob.browser });
      assert.equal(me.status, 403);
      const signIn = await d.routes.signIn(
        appRequest('/auth/sign-in', { method: 'POST', body: { email: bob.email, password: 'correct horse battery staple' } }),
        {},
        { ip: '192.0.2.50' },
      );
      assert.equal(signIn.status, 403);
      assert.equal(signIn.headers.get('set-cookie'), null, 'no session was made');
      const signOut = await d.call(d.routes.signOut, '/auth/sign-out', { method: 'POST', browser: bob.browser });
      assert.equal(signOut.status, 204, 'a disabled user can still sign out');

      const wallet = await ensureWallet(d.h.svc.store, 'eip155', `0x${'ef'.repeat(20)}`);
      await walletPrincipal(d.h.svc.store, wallet);
      const wu = await ensureWalletUser(d.h.svc.store, wallet);
      const s = await createSession(d.h.svc.store, wu.id);
      const walletBrowser = { ip: '192.0.2.60', cookie: `${SESSION_COOKIE}=${s.token}`, csrf: s.csrfToken };
      assert.equal((await patch(wallet.accountId, { disabled: true })).status, 200);
      await assert.rejects(
        walletPrincipal(d.h.svc.store, wallet),
        (e: Error & { status?: number }) => e.status === 403 && e.message === ACCOUNT_DISABLED_MESSAGE,
      );
      assert.equal((await d.call(d.routes.account, '/account', { browser: walletBrowser })).status, 403);

      assert.equal((await patch(bob.user.accountId, { disabled: false })).status, 200);
      assert.equal((await patch(wallet.accountId, { disabled: false })).status, 200);
      await apiChat(d.h, bobKey.secret);
      await walletPrincipal(d.h.svc.store, wallet);
      assert.equal((await d.call(d.routes.account, '/account', { browser: walletBrowser })).status, 200);
      const back = await d.routes.signIn(
        appRequest('/auth/sign-in', { method: 'POST', body: { email: bob.email, password: 'correct horse battery staple' } }),
        {},
        { ip: '192.0.2.51' },
      );
      assert.equal(back.status, 200);
      const actions = (await audit()).entries.map((e) => e.action);
      assert.equal(actions.filter((a) => a === 'disable').length, 2);
      assert.equal(actions.filter((a) => a === 'enable').length, 2);
    });

    test('the operator cannot disable their own account', async () => {
      const r = await patch(op.user.accountId, { disabled: true });
      assert.equal(r.status, 400);
      assert.equal((await d.call(d.routes.operatorAccounts, '/operator/accounts', { browser: op.browser })).status, 200);
    });
  });

// Teams on a real service, SQLite and PostgreSQL: an owner makes a team and invites by link; the invitee accepts while
// signed in and the session acts for the team; credit moves between the owner's own and the team's balance exactly
// once with a ledger entry on each side; a member's app chat and API key bill the team as that member; their cap and
// model list refuse at admission with a clear body; concurrent requests cannot overshoot the cap (the reservation
// enforces it, DIEM at par, on one instance and on two sharing PostgreSQL); a member sees only their own keys and
// usage, never the team's statement; admins filter the statement by member; a removed member loses the team at once,
// on a second instance sharing the database too (PostgreSQL).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { reconcile } from '../billing/entries.ts';
import { setDiemDaily } from '../billing/ledger.ts';
import { memberSettled } from '../billing/member-cap.ts';
import type { AppDeps } from '../http/app-deps.ts';
import type { RouteHandler } from '../http/app-route.ts';
import { createSession, SESSION_COOKIE } from '../users/sessions.ts';
import { createAppBackend } from '../http/app-backend.ts';
import type { AppMessage, GenerationEvent, TeamDetail, TeamsView, TemporaryTurnResponse } from '../wire.ts';
import { appRequest, type Browser } from '../../e2e/support/app-requests.ts';
import { BACKENDS, type Dash, type DashUser, startDash } from '../../e2e/support/app-dash.ts';
import { type Harness, post, startHarness } from '../../e2e/support/harness.ts';
import { EventReader } from '../../e2e/support/app-chat.ts';

for (const backend of BACKENDS)
  describe(`teams (${backend})`, () => {
    let d: Dash;
    let alice: DashUser; // the owner
    let bob: DashUser; // a member
    let carol: DashUser; // an admin
    let teamId: string;
    let bobKey: string;

    before(async () => {
      d = await startDash(backend);
      alice = await d.newUser(10);
      bob = await d.newUser(1);
      carol = await d.newUser(0);
    });
    after(() => d?.close());

    const call = (
      handler: keyof Dash['routes'],
      path: string,
      browser: Browser,
      o: { method?: string; body?: unknown; params?: Record<string, string> } = {},
    ) => d.call(d.routes[handler] as RouteHandler, path, { browser, method: o.method, body: o.body }, o.params ?? {});
    /** The one call whose answer carries a secret (the new key's), so it skips the key-material scan. */
    async function createKey(browser: Browser, body: unknown): Promise<{ status: number; json: any }> {
      const res = await d.routes.createApiKey(appRequest('/api-keys', { method: 'POST', body, browser }), {}, { ip: browser.ip });
      return { status: res.status, json: await res.json() };
    }
    const balance = async (accountId: string) => (await d.h.svc.ledger.balances(accountId)).usd;

    test('an owner makes a team and invites by link; the invitee accepts signed in and acts for the team', async () => {
      const made = await call('createTeam', '/teams', alice.browser, { method: 'POST', body: { name: 'Reef Lab' } });
      assert.equal(made.status, 201, made.text);
      teamId = made.json.accountId;
      assert.equal(made.json.role, 'owner');

      const inv = await call('createInvite', `/teams/${teamId}/invites`, alice.browser, { method: 'POST', body: { role: 'member' }, params: { id: teamId } });
      assert.equal(inv.status, 201, inv.text);
      assert.equal(inv.json.mailed, false);
      const token = new URL(inv.json.link).hash.replace('#token=', '');
      // Nobody but a member may invite; a signed-out accept is 401.
      const foreign = await call('createInvite', `/teams/${teamId}/invites`, bob.browser, { method: 'POST', body: { role: 'member' }, params: { id: teamId } });
      assert.equal(foreign.status, 403);
      const anon = await d.routes.acceptInvite(appRequest('/teams/invites/accept', { method: 'POST', body: { token }, browser: { ip: '192.0.2.9' } }), {});
      assert.equal(anon.status, 401);

      const accepted = await call('acceptInvite', '/teams/invites/accept', bob.browser, { method: 'POST', body: { token } });
      assert.equal(accepted.status, 200, accepted.text);
      assert.equal((accepted.json as TeamsView).active?.accountId, teamId);
      assert.equal((accepted.json as TeamsView).active?.role, 'member');
      // Single use.
      const again = await call('acceptInvite', '/teams/invites/accept', carol.browser, { method: 'POST', body: { token } });
      assert.equal(again.status, 404);

      const adminInv = await call('createInvite', `/teams/${teamId}/invites`, alice.browser, {
        method: 'POST',
        body: { role: 'admin' },
        params: { id: teamId },
      });
      const adminToken = new URL(adminInv.json.link).hash.replace('#token=', '');
      assert.equal((await call('acceptInvite', '/teams/invites/accept', carol.browser, { method: 'POST', body: { token: adminToken } })).status, 200);
      const me = await call('teams', '/teams', bob.browser);
      assert.deepEqual(
        me.json.teams.map((t: { name: string; role: string }) => [t.name, t.role]),
        [['Reef Lab', 'member']],
      );
    });

    test('the owner moves credit to the team and back, exactly once per transfer id, an entry on each side', async () => {
      const id = randomUUID();
      const before = await balance(alice.user.accountId);
      const body = { id, direction: 'to_team', usd: 4 };
      const first = await call('transferCredit', `/teams/${teamId}/transfer`, alice.browser, { method: 'POST', body, params: { id: teamId } });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.json.moved, true);
      const retry = await call('transferCredit', `/teams/${teamId}/transfer`, alice.browser, { method: 'POST', body, params: { id: teamId } });
      assert.equal(retry.json.moved, false);
      assert.equal(await balance(alice.user.accountId), before - 4_000_000);
      assert.equal(await balance(teamId), 4_000_000);
      const other = await call('transferCredit', `/teams/${teamId}/transfer`, alice.browser, {
        method: 'POST',
        body: { ...body, usd: 5 },
        params: { id: teamId },
      });
      assert.equal(other.status, 409, 'a transfer id names one transfer');
      const back = await call('transferCredit', `/teams/${teamId}/transfer`, alice.browser, {
        method: 'POST',
        body: { id: randomUUID(), direction: 'to_personal', usd: 1 },
        params: { id: teamId },
      });
      assert.equal(back.status, 200, back.text);
      assert.equal(await balance(teamId), 3_000_000);
      const tooMuch = await call('transferCredit', `/teams/${teamId}/transfer`, alice.browser, {
        method: 'POST',
        body: { id: randomUUID(), direction: 'to_personal', usd: 50 },
        params: { id: teamId },
      });
      assert.equal(tooMuch.status, 402);
      // Only the owner moves credit.
      const byAdmin = await call('transferCredit', `/teams/${teamId}/transfer`, carol.browser, {
        method: 'POST',
        body: { id: randomUUID(), direction: 'to_personal', usd: 1 },
        params: { id: teamId },
      });
      assert.equal(byAdmin.status, 403);
      const entries = await d.h.svc.store.all<{ account_id: string; usd: number | string }>(
        "SELECT account_id, usd FROM ledger_entries WHERE kind = 'transfer' AND ref = $1",
        [id],
      );
      assert.deepEqual(
        entries.map((e) => Number(e.usd)).sort((a, b) => a - b),
        [-4_000_000, 4_000_000],
      );
      assert.deepEqual((await reconcile(d.h.svc.store)).differences, []);
    });

    test("a member's app chat and API key bill the team, as that member", async () => {
      const teamBefore = await balance(teamId);
      const bobOwnBefore = await balance(bob.user.accountId);
      const r = await d.routes.temporaryTurn(
        appRequest('/chat/temporary', { method: 'POST', body: { chatId: 'temporary-1', history: [], content: 'hi [[reply:Coral.]]' }, browser: bob.browser }),
        {},
      );
      assert.equal(r.status, 201, await r.clone().text());
      const { assistant } = (await r.json()) as TemporaryTurnResponse;
      const done = await finish(bob.browser, assistant.id);
      assert.equal(done.status, 'complete', JSON.stringify(done.error));

      const key = await createKey(bob.browser, { apiKeyType: 'INFERENCE', description: 'bob cli' });
      assert.equal(key.status, 201, JSON.stringify(key.json));
      bobKey = key.json.secret;
      const admin = await createKey(bob.browser, { apiKeyType: 'ADMIN', description: 'nope' });
      assert.equal(admin.status, 403, 'a member makes no ADMIN keys of the team');
      const chat = await post(d.h, '/chat/completions', bobKey, { model: 'scripted-model', messages: [{ role: 'user', content: 'hi [[reply:ok]]' }] });
      assert.equal(chat.status, 200, chat.text);
      await d.h.svc.ledger.drain();
      assert.ok((await balance(teamId)) < teamBefore, 'the team paid');
      assert.equal(await balance(bob.user.accountId), bobOwnBefore, "not bob's own balance");

      // Usage: bob sees his own; the owner filters by member; the statement is the owner's and admins' only.
      const mine = await call('usage', '/usage?days=7', bob.browser);
      assert.equal(mine.status, 200, mine.text);
      assert.equal(mine.json.totals.requests, 2);
      const others = await call('usage', `/usage?days=7&memberId=${alice.user.id}`, bob.browser);
      assert.equal(others.status, 403);
      assert.equal((await call('billingStatement', '/billing/statement', bob.browser)).status, 403);
      assert.equal((await call('billingSummary', '/billing/summary', bob.browser)).status, 403);
      const aliceTeam = await call('switchAccount', '/teams/switch', alice.browser, { method: 'POST', body: { accountId: teamId } });
      assert.equal(aliceTeam.json.active.accountId, teamId);
      const byBob = await call('billingStatement', `/billing/statement?memberId=${bob.user.id}&kind=inference`, alice.browser);
      assert.equal(byBob.status, 200, byBob.text);
      assert.equal(byBob.json.total, 2);
      // Carol (an admin) acts for the team since she accepted its invitation; a filter naming a stranger is 404.
      const stranger = await call('billingStatement', `/billing/statement?memberId=${randomUUID()}`, carol.browser);
      assert.equal(stranger.status, 404);
      const carolView = await call('billingStatement', `/billing/statement?memberId=${alice.user.id}&kind=inference`, carol.browser);
      assert.equal(carolView.status, 200, carolView.text);
      assert.equal(carolView.json.total, 0);
      const teamUsage = await call('usage', '/usage?days=7', carol.browser);
      assert.equal(teamUsage.json.totals.requests, 2);
    });

    test('a member sees only their own keys; admins see every key of the team', async () => {
      const bobs = await call('listApiKeys', '/api-keys', bob.browser);
      assert.equal(bobs.status, 200);
      assert.equal(bobs.json.canCreateAdmin, false);
      const carolKey = await createKey(carol.browser, { apiKeyType: 'INFERENCE', description: 'carol key' });
      assert.equal(carolKey.status, 201);
      const bobSees = (await call('listApiKeys', '/api-keys', bob.browser)).json.keys.map((k: { description: string }) => k.description);
      assert.ok(bobSees.includes('bob cli') && !bobSees.includes('carol key'), JSON.stringify(bobSees));
      const carolSees = (await call('listApiKeys', '/api-keys', carol.browser)).json.keys.map((k: { description: string }) => k.description);
      assert.ok(carolSees.includes('bob cli') && carolSees.includes('carol key'));
      // Another member's key is not found for a member, as another account's is.
      const id = carolKey.json.key.id;
      assert.equal((await call('revokeApiKey', `/api-keys/${id}`, bob.browser, { method: 'DELETE', params: { id } })).status, 404);
      assert.equal((await call('updateApiKey', `/api-keys/${id}`, bob.browser, { method: 'PATCH', body: { description: 'x' }, params: { id } })).status, 404);
      // A member sees only themselves on the team page; an admin sees every member and the invites.
      const bobPage = (await call('team', `/teams/${teamId}`, bob.browser, { params: { id: teamId } })).json as TeamDetail;
      assert.deepEqual(
        bobPage.members.map((m) => m.userId),
        [bob.user.id],
      );
      const carolPage = (await call('team', `/teams/${teamId}`, carol.browser, { params: { id: teamId } })).json as TeamDetail;
      assert.equal(carolPage.members.length, 3);
    });

    test("a member's model list and spend cap refuse at admission with a clear body", async () => {
      const path = `/teams/${teamId}/members/${bob.user.id}`;
      const params = { id: teamId, userId: bob.user.id };
      // A member cannot raise their own cap.
      assert.equal((await call('updateMember', path, bob.browser, { method: 'PATCH', body: { capUsd: null }, params })).status, 403);
      const bad = await call('updateMember', path, alice.browser, { method: 'PATCH', body: { models: ['no-such-model'] }, params });
      assert.equal(bad.status, 400);
      const listed = await call('updateMember', path, carol.browser, { method: 'PATCH', body: { models: ['plain-model'] }, params });
      assert.equal(listed.status, 200, listed.text);
      const refused = await post(d.h, '/chat/completions', bobKey, { model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(refused.status, 403);
      assert.equal(refused.json.code, 'MODEL_NOT_ALLOWED_FOR_MEMBER');
      assert.deepEqual(refused.json.models, ['plain-model']);
      assert.equal(
        (await post(d.h, '/chat/completions', bobKey, { model: 'plain-model', messages: [{ role: 'user', content: 'hi [[reply:ok]]' }] })).status,
        200,
      );

      const capped = await call('updateMember', path, alice.browser, { method: 'PATCH', body: { models: null, capUsd: 0.000001, capPeriod: 'MONTH' }, params });
      assert.equal(capped.status, 200, capped.text);
      assert.equal(capped.json.capUsd, 0.000001);
      await d.h.svc.ledger.drain();
      const over = await post(d.h, '/chat/completions', bobKey, { model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(over.status, 402);
      assert.equal(over.json.code, 'TEAM_MEMBER_SPEND_LIMIT_EXCEEDED');
      assert.match(over.json.error, /spend cap of 0\.000001 USD per month/);
      // The app's chat hears the same refusal.
      const r = await d.routes.temporaryTurn(
        appRequest('/chat/temporary', { method: 'POST', body: { chatId: 'temporary-2', history: [], content: 'hi' }, browser: bob.browser }),
        {},
      );
      const refusal =
        r.status === 201 ? (await finish(bob.browser, ((await r.json()) as TemporaryTurnResponse).assistant.id)).error?.code : (await r.json()).code;
      assert.equal(refusal, 'TEAM_MEMBER_SPEND_LIMIT_EXCEEDED');
      await call('updateMember', path, alice.browser, { method: 'PATCH', body: { capUsd: null }, params });
    });

    test("a member's cap holds under concurrency, DIEM at par: of 3K requests K fit, the rest are 402 and charge nothing", async () => {
      const K = 3;
      const path = `/teams/${teamId}/members/${bob.user.id}`;
      const params = { id: teamId, userId: bob.user.id };
      // One body for every request, so each reserves the same worst case; the delay keeps the admitted ones in flight
      // while the others reserve.
      const body = { model: 'scripted-model', max_tokens: 500, messages: [{ role: 'user', content: 'race [[delay:400]] [[reply:ok]]' }] };
      const held = async () => {
        const b = await d.h.svc.ledger.balances(teamId);
        return b.usdHeld + b.diemHeld;
      };
      // The worst case, read off the team's held credit while one such request runs.
      const probe = post(d.h, '/chat/completions', bobKey, body);
      let worst = 0;
      for (let i = 0; i < 200 && worst === 0; i++) {
        worst = await held();
        if (!worst) await new Promise((r) => setTimeout(r, 5));
      }
      assert.ok(worst > 0, 'the probe held its worst case');
      assert.equal((await probe).status, 200);
      await d.h.svc.ledger.drain();
      // DIEM counts against the cap at par: the team gets an allowance that pays for part of the race.
      await setDiemDaily(d.h.svc.store, teamId, Math.round(worst * 1.5));

      const bobKeys = 'SELECT id FROM api_keys WHERE account_id = $1 AND member_id = $2';
      let second: Harness | undefined;
      if (backend === 'postgres') second = await startHarness({ app: true, databaseUrl: d.h.svc.config.databaseUrl });
      try {
        for (const instances of second ? [[d.h], [d.h, second]] : [[d.h]]) {
          const since = Date.now();
          // A cap that fits K worst cases beyond what bob has spent (a hold can be a micro-unit over when it splits).
          const cap = (await memberSettled(d.h.svc.store, teamId, bob.user.id, 0)) + K * worst + Math.floor(worst / 2);
          const set = await call('updateMember', path, alice.browser, { method: 'PATCH', body: { capUsd: cap / 1_000_000, capPeriod: 'LIFETIME' }, params });
          assert.equal(set.status, 200, set.text);
          const answers = await Promise.all(Array.from({ length: 3 * K }, (_, i) => post(instances[i % instances.length], '/chat/completions', bobKey, body)));
          const ok = answers.filter((a) => a.status === 200);
          const refused = answers.filter((a) => a.status !== 200);
          assert.equal(ok.length, K, `on ${instances.length} instance(s): ${answers.map((a) => a.status).join(',')}`);
          for (const r of refused) {
            assert.equal(r.status, 402, r.text);
            assert.equal(r.json.code, 'TEAM_MEMBER_SPEND_LIMIT_EXCEEDED');
            assert.match(r.json.error, new RegExp(`spend cap of ${(cap / 1_000_000).toFixed(6).replace('.', '\\.')} USD in all`));
            assert.equal(r.json.capUsd, (cap / 1_000_000).toFixed(6));
            assert.equal(r.json.period, 'LIFETIME');
          }
          for (const h of instances) await h.svc.ledger.drain();
          assert.ok((await memberSettled(d.h.svc.store, teamId, bob.user.id, 0)) <= cap, 'settled spend within the cap');
          const rows = await d.h.svc.store.all<{ usd: number | string; diem: number | string }>(
            `SELECT usd, diem FROM usage WHERE key_id IN (${bobKeys}) AND created_at >= $3`,
            [teamId, bob.user.id, since],
          );
          assert.equal(rows.length, K, 'only the admitted requests were charged');
          if (instances.length === 1)
            assert.ok(
              rows.some((r) => Number(r.diem) > 0),
              'DIEM paid for some, and counted',
            );
          assert.equal(await held(), 0, 'nothing left held');
        }
      } finally {
        await second?.close();
        await setDiemDaily(d.h.svc.store, teamId, 0);
        await call('updateMember', path, alice.browser, { method: 'PATCH', body: { capUsd: null, capPeriod: 'MONTH' }, params });
      }
      assert.deepEqual((await reconcile(d.h.svc.store)).differences, []);
    });

    test('a removed member loses the team at once: keys, session, and on a second instance', async () => {
      // A second instance on the same database (PostgreSQL: the deployment shape with several instances).
      let second: Harness | undefined;
      let secondDeps: AppDeps | undefined;
      if (backend === 'postgres') {
        second = await startHarness({ app: true, databaseUrl: d.h.svc.config.databaseUrl });
        secondDeps = { svc: second.svc, app: second.svc.config.app };
      }
      try {
        const ok = await post(second ?? d.h, '/chat/completions', bobKey, {
          model: 'scripted-model',
          messages: [{ role: 'user', content: 'hi [[reply:ok]]' }],
        });
        assert.equal(ok.status, 200, ok.text);
        const gone = await call('removeMember', `/teams/${teamId}/members/${bob.user.id}`, carol.browser, {
          method: 'DELETE',
          params: { id: teamId, userId: bob.user.id },
        });
        assert.equal(gone.status, 204, gone.text);
        const refused = await post(second ?? d.h, '/chat/completions', bobKey, { model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }] });
        assert.equal(refused.status, 401, refused.text);
        // Bob's session is his own account again: the team's keys, page and usage are gone for him.
        const teams = await call('teams', '/teams', bob.browser);
        assert.equal(teams.json.active, null);
        assert.deepEqual(teams.json.teams, []);
        assert.equal((await call('team', `/teams/${teamId}`, bob.browser, { params: { id: teamId } })).status, 403);
        const keys = (await call('listApiKeys', '/api-keys', bob.browser)).json.keys.map((k: { description: string }) => k.description);
        assert.ok(!keys.includes('bob cli'));
        // Switching back in is refused.
        assert.equal((await call('switchAccount', '/teams/switch', bob.browser, { method: 'POST', body: { accountId: teamId } })).status, 403);
        if (secondDeps) {
          // The other instance reads the session afresh too: bob acts for his own account there.
          const backend2 = createAppBackend(secondDeps.svc, secondDeps.app);
          const r = await backend2.routes.teams(appRequest('/teams', { browser: bob.browser }), {});
          assert.equal(((await r.json()) as TeamsView).active, null);
          await backend2.close();
        }
      } finally {
        await second?.close();
      }
    });

    test('a session of the team, made before the removal elsewhere, acts for the user again', async () => {
      const s = await createSession(d.h.svc.store, carol.user.id);
      const browser = { ip: '192.0.2.21', cookie: `${SESSION_COOKIE}=${s.token}`, csrf: s.csrfToken };
      await call('switchAccount', '/teams/switch', browser, { method: 'POST', body: { accountId: teamId } });
      assert.equal((await call('billingStatement', '/billing/statement', browser)).status, 200);
      await d.h.svc.store.run('DELETE FROM team_members WHERE account_id = $1 AND user_id = $2', [teamId, carol.user.id]);
      // No cached grant: the next request reads the membership and finds none.
      const after = await call('teams', '/teams', browser);
      assert.equal(after.json.active, null);
      const statement = await call('billingStatement', '/billing/statement', browser);
      assert.equal(statement.status, 200);
      assert.equal(statement.json.total, 0, "carol's own (empty) statement, not the team's");
    });

    async function finish(browser: Browser, id: string): Promise<AppMessage> {
      const res = await d.routes.streamMessage(appRequest(`/messages/${id}/stream`, { browser }), { id });
      const events: GenerationEvent[] = await new EventReader(res).rest();
      const done = events.at(-1);
      assert.equal(done?.type, 'done', JSON.stringify(events));
      return (done as { message: AppMessage }).message;
    }
  });

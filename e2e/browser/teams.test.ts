// Teams in Chromium: the owner makes a team on /teams, moves credit into it and creates an invitation link; the
// invitee opens the link signed in and accepts, and the account switcher then shows the team; their chat is paid by
// the team. The owner puts a model list on the member, whose next chat is refused (403, the server's words in the
// banner); then a spend cap, and the next chat is refused with 402. Then the key-material scan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ask, lastAnswer } from './support/chat.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until } from './support/wait.ts';

const skip = browserSkip();

if (skip) test('browser: teams', { skip }, () => {});
else
  describe('browser: teams', () => {
    let run: AppRun;
    let alice: TestUser;
    let bob: TestUser;
    let owner: Page;
    let member: Page;
    let link = '';
    let teamId = '';

    before(async () => {
      run = await startApp();
      alice = await run.newUser({ usd: 10, displayName: 'Alice' });
      bob = await run.newUser({ displayName: 'Bob' });
      ({ page: owner } = await run.newPage());
      ({ page: member } = await run.newPage());
      await run.signIn(owner, alice.email, '/teams');
      await owner.getByTestId('teams-page').waitFor();
    });
    after(() => run?.close());

    const teamBalance = async () => (await run.h.svc.ledger.balances(teamId)).usd;

    test('the owner makes a team, moves credit into it and creates an invitation link', async () => {
      await owner.getByTestId('team-name').fill('Reef Lab');
      await owner.getByTestId('create-team').click();
      await owner.getByTestId('team-balance').waitFor();
      teamId = await until(
        async () => (await run.h.svc.store.get<{ account_id: string }>('SELECT account_id FROM team_members WHERE user_id = $1', [alice.user.id]))?.account_id,
        'the team',
      );
      await owner.getByTestId('transfer-usd').fill('5');
      await owner.getByTestId('transfer-to-team').click();
      await until(async () => (await textOf(owner.getByTestId('team-balance'))).includes('5.00'), 'the team balance to show $5.00');
      assert.equal(await teamBalance(), 5_000_000);
      assert.equal((await run.h.svc.ledger.balances(alice.user.accountId)).usd, 5_000_000);
      await owner.getByTestId('create-invite').click();
      link = await textOf(owner.getByTestId('invite-link'));
      assert.match(link, /\/teams\/join#token=[A-Za-z0-9_-]{43}$/);
    });

    test('the invitee accepts signed in; the switcher shows the team, and their chat is paid by the team', async () => {
      const { pathname, hash } = new URL(link);
      await run.signIn(member, bob.email, `${pathname}${hash}`);
      await member.getByTestId('accept-invite').click();
      await member.getByTestId('teams-page').waitFor();
      const switcher = member.getByTestId('account-switcher');
      await until(async () => (await switcher.inputValue()) === teamId, 'the switcher to show the team');
      assert.equal(await switcher.locator('option:checked').innerText(), 'Reef Lab');

      await member.goto(`${run.h.origin}/`);
      const before = await teamBalance();
      await ask(member, 'Name a reef fish [[reply:A parrotfish.]]');
      await run.h.svc.ledger.drain();
      assert.ok((await teamBalance()) < before, 'the team paid for the chat');
      assert.equal((await run.h.svc.ledger.balances(bob.user.accountId)).usd, 0, 'not the member');
    });

    test("the owner's model list for the member refuses their next chat (403)", async () => {
      await owner.reload();
      const row = owner.locator(`[data-testid="member-row"][data-user="${bob.email}"]`);
      await row.getByTestId('member-models').fill('plain-model');
      await row.getByTestId('member-save').click();
      await until(
        async () =>
          (await run.h.svc.store.get<{ m: string | null }>('SELECT allowed_models AS m FROM team_members WHERE user_id = $1', [bob.user.id]))?.m ===
          '["plain-model"]',
        'the model list saved',
      );
      await ask(member, 'Another fish', 'error');
      const banner = lastAnswer(member).getByTestId('error-banner');
      assert.equal(await banner.getAttribute('data-status'), '403');
      assert.match(await textOf(banner), /Your team lets you use only plain-model/);
    });

    test("the member's spend cap refuses their next chat (402)", async () => {
      const row = owner.locator(`[data-testid="member-row"][data-user="${bob.email}"]`);
      await row.getByTestId('member-models').fill('');
      await row.getByTestId('member-cap').fill('0.000001');
      await row.getByTestId('member-save').click();
      await until(async () => {
        const r = await run.h.svc.store.get<{ cap: number | string | null; m: string | null }>(
          'SELECT cap_usd AS cap, allowed_models AS m FROM team_members WHERE user_id = $1',
          [bob.user.id],
        );
        return r && Number(r.cap) === 1 && r.m === null;
      }, 'the cap saved');
      await ask(member, 'One more fish', 'error');
      const banner = lastAnswer(member).getByTestId('error-banner');
      assert.equal(await banner.getAttribute('data-status'), '402');
      assert.match(await textOf(banner), /team spend cap of 0\.000001 USD per month/);
    });

    test('no key material reached either browser', async () => {
      await assertNoKeyMaterial(run);
    });
  });

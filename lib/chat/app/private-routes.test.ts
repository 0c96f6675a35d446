// The private chats' routes, on both stores: the vault is made once (a second is 409), only sealed texts are kept
// (plain text is a 400), another user's chat is a 404 for every verb, a turn appends in order, deletion takes the
// messages along, attestation needs an E2EE model and a 64-hex nonce, and a completion with malformed keys is
// refused before anything is held.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSession, SESSION_COOKIE } from '../../users/sessions.ts';
import { signUp } from '../../users/users.ts';
import { grantUsd } from '../../billing/ledger.ts';
import { toMicros } from '../../billing/money.ts';
import { type Browser, caller } from '../../../e2e/support/app-requests.ts';
import { type Harness, scriptedModel, startHarness } from '../../../e2e/support/harness.ts';
import { createTestDatabase } from '../../../e2e/support/pg.ts';

const sealed = (n: number) => `v1.${Buffer.from(`sealed text ${n} with its nonce and tag`).toString('base64')}`;
const nonce = 'cd'.repeat(32);

for (const backend of ['sqlite', 'postgres'] as const)
  describe(`private chat routes (${backend})`, () => {
    let h: Harness;
    let drop: (() => Promise<void>) | undefined;
    let call: ReturnType<typeof caller>;
    let alice: Browser;
    let bob: Browser;
    let seq = 0;

    const user = async (): Promise<Browser> => {
      const { user: u } = await signUp(h.svc.store, { email: `private${++seq}-${process.pid}@example.test`, password: 'correct horse battery staple' });
      await grantUsd(h.svc.store, u.accountId, toMicros(5));
      const s = await createSession(h.svc.store, u.id);
      return { ip: '192.0.2.30', cookie: `${SESSION_COOKIE}=${s.token}`, csrf: s.csrfToken };
    };

    before(async () => {
      const db = backend === 'postgres' ? await createTestDatabase() : undefined;
      drop = db?.drop;
      h = await startHarness({ app: true, databaseUrl: db?.url, models: (url) => [scriptedModel('e2ee-model', url, { capabilities: { e2ee: true } })] });
      call = caller(h.svc.store);
      alice = await user();
      bob = await user();
    });
    after(async () => {
      await h?.close();
      await drop?.();
    });
    const r = () => h.app!.routes;

    test('the vault: none, then made once; a second is a 409; a salt or check that is not sealed is a 400', async () => {
      assert.deepEqual((await call(r().privateVault, '/private/vault', { browser: alice })).json, { vault: null });
      const bad = await call(r().createPrivateVault, '/private/vault', {
        method: 'PUT',
        body: { salt: 'AAAAAAAAAAAAAAAAAAAAAA==', check: 'plain words' },
        browser: alice,
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.json.param, 'check');
      const made = await call(r().createPrivateVault, '/private/vault', {
        method: 'PUT',
        body: { salt: 'AAAAAAAAAAAAAAAAAAAAAA==', check: sealed(0) },
        browser: alice,
      });
      assert.equal(made.status, 201, made.text);
      const again = await call(r().createPrivateVault, '/private/vault', {
        method: 'PUT',
        body: { salt: 'BBBBBBBBBBBBBBBBBBBBBB==', check: sealed(1) },
        browser: alice,
      });
      assert.equal(again.status, 409);
      assert.equal((await call(r().privateVault, '/private/vault', { browser: alice })).json.vault.salt, 'AAAAAAAAAAAAAAAAAAAAAA==');
    });

    test("chats keep sealed text only, turns append in order, and another user's chat is a 404 for every verb", async () => {
      const plain = await call(r().createPrivateChat, '/private/chats', {
        method: 'POST',
        body: { title: 'My secret plans', modelId: 'e2ee-model' },
        browser: alice,
      });
      assert.equal(plain.status, 400);
      const notE2ee = await call(r().createPrivateChat, '/private/chats', {
        method: 'POST',
        body: { title: sealed(1), modelId: 'scripted-model' },
        browser: alice,
      });
      assert.equal(notE2ee.status, 400);
      const made = await call(r().createPrivateChat, '/private/chats', { method: 'POST', body: { title: sealed(1), modelId: 'e2ee-model' }, browser: alice });
      assert.equal(made.status, 201, made.text);
      const id = made.json.chat.id as string;
      for (const turn of [1, 2]) {
        const t = await call(
          r().appendPrivateTurn,
          `/private/chats/${id}/messages`,
          {
            method: 'POST',
            body: {
              messages: [
                { role: 'user', content: sealed(turn * 10) },
                { role: 'assistant', content: sealed(turn * 10 + 1), requestId: `req${turn}` },
              ],
            },
            browser: alice,
          },
          { id },
        );
        assert.equal(t.status, 201, t.text);
      }
      const got = await call(r().getPrivateChat, `/private/chats/${id}`, { browser: alice }, { id });
      assert.deepEqual(
        got.json.messages.map((m: { seq: number; role: string; content: string }) => [m.seq, m.role, m.content]),
        [
          [0, 'user', sealed(10)],
          [1, 'assistant', sealed(11)],
          [2, 'user', sealed(20)],
          [3, 'assistant', sealed(21)],
        ],
      );
      // Bob sees nothing of it.
      assert.deepEqual((await call(r().listPrivateChats, '/private/chats', { browser: bob })).json.chats, []);
      assert.equal((await call(r().getPrivateChat, `/private/chats/${id}`, { browser: bob }, { id })).status, 404);
      assert.equal(
        (await call(r().renamePrivateChat, `/private/chats/${id}`, { method: 'PATCH', body: { title: sealed(9) }, browser: bob }, { id })).status,
        404,
      );
      const append = { method: 'POST', body: { messages: [{ role: 'user', content: sealed(99) }] }, browser: bob };
      assert.equal((await call(r().appendPrivateTurn, `/private/chats/${id}/messages`, append, { id })).status, 404);
      assert.equal((await call(r().deletePrivateChat, `/private/chats/${id}`, { method: 'DELETE', browser: bob }, { id })).status, 404);
      // Alice deletes it, and its messages go too.
      assert.equal((await call(r().deletePrivateChat, `/private/chats/${id}`, { method: 'DELETE', browser: alice }, { id })).status, 204);
      assert.equal(Number((await h.svc.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM private_messages WHERE chat_id = $1', [id]))!.n), 0);
    });

    test('attestation needs an E2EE model and a 64-hex nonce; a completion with malformed keys holds nothing', async () => {
      const a = await call(r().privateAttestation, `/private/attestation?model=e2ee-model&nonce=${nonce}`, { browser: alice });
      assert.equal(a.status, 200, a.text);
      assert.equal(a.json.nonce, nonce);
      assert.equal(a.json.verified, false);
      assert.equal(a.json.teeProvider, 'none');
      assert.match(a.json.signingKey, /^04[0-9a-f]{128}$/);
      assert.equal((await call(r().privateAttestation, '/private/attestation?model=e2ee-model&nonce=12', { browser: alice })).status, 400);
      assert.equal((await call(r().privateAttestation, `/private/attestation?model=scripted-model&nonce=${nonce}`, { browser: alice })).status, 400);
      const bad = await call(r().privateCompletion, '/private/completions', {
        method: 'POST',
        body: { model: 'e2ee-model', clientKey: '04abc', modelKey: a.json.signingKey, messages: [{ role: 'user', content: 'x' }] },
        browser: alice,
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.json.param, 'clientKey');
      assert.equal(Number((await h.svc.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM holds'))!.n), 0);
    });
  });

// Sign-up, sign-in and the server-held principal, on both backends.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { accountKeys } from '../auth/keys.ts';
import type { Store } from '../db/store.ts';
import { BACKENDS, freshStore } from '../../e2e/support/stores.ts';
import { BROWSER_KEY_DESCRIPTION, dummyPasswordHash, getUser, principalForUser, publicUser, signIn, signUp } from './users.ts';

const PW = 'correct horse battery';
const invalid = (message?: RegExp) => ({ code: 'INVALID_REQUEST', status: 400, ...(message ? { message } : {}) });
const BAD_LOGIN = { code: 'AUTHENTICATION_FAILED', status: 401, message: 'Incorrect email or password' };

for (const backend of BACKENDS) {
  describe(`users on ${backend}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    before(async () => ({ store, dispose } = await freshStore(backend)));
    after(async () => dispose());

    test('the first user is the admin, the second is not; each gets its own account and browser key', async () => {
      const first = await signUp(store, { email: '  Admin@Example.COM ', password: PW, displayName: ' Ada\u0000 \u202Eadmin\n ' });
      assert.equal(first.user.email, 'admin@example.com');
      assert.equal(first.user.displayName, 'Ada admin');
      assert.equal(first.user.isAdmin, true);
      assert.equal(first.accountId, first.user.accountId);
      const second = await signUp(store, { email: 'bob@example.com', password: PW });
      assert.equal(second.user.isAdmin, false);
      assert.equal(second.user.displayName, '');
      assert.notEqual(second.accountId, first.accountId);
      const account = await store.get<{ name: string }>('SELECT name FROM accounts WHERE id = $1', [second.accountId]);
      assert.equal(account?.name, 'bob@example.com');
      const keys = await accountKeys(store, second.accountId).listActive();
      assert.equal(keys.length, 1);
      assert.equal(keys[0].type, 'INFERENCE');
      assert.equal(keys[0].description, BROWSER_KEY_DESCRIPTION);
      assert.deepEqual(await getUser(store, second.user.id), second.user);
      assert.equal(await getUser(store, 'no-such-user'), undefined);
      const stored = await store.get<{ password_hash: string; is_admin: unknown }>('SELECT password_hash, is_admin FROM users WHERE id = $1', [first.user.id]);
      assert.match(stored!.password_hash, /^\$argon2id\$/);
      assert.ok(!stored!.password_hash.includes(PW));
    });

    test('publicUser exposes only id, email, displayName, isAdmin, createdAt', async () => {
      const { user } = await signUp(store, { email: 'pub@example.com', password: PW, displayName: 'Pub' });
      const p = publicUser(user);
      assert.deepEqual(Object.keys(p).sort(), ['createdAt', 'displayName', 'email', 'id', 'isAdmin']);
      assert.deepEqual(p, { id: user.id, email: 'pub@example.com', displayName: 'Pub', isAdmin: false, createdAt: user.createdAt });
      assert.ok(!JSON.stringify(p).includes(user.accountId));
    });

    test('sign-up validation', async () => {
      const before = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM accounts');
      for (const email of [
        '',
        '   ',
        'no-at-sign',
        'a@b',
        '@example.com',
        'a b@example.com',
        'a@exa mple.com',
        `${'x'.repeat(250)}@example.com`,
        42,
        undefined,
      ]) {
        await assert.rejects(signUp(store, { email, password: PW }), invalid(/email/i), String(email));
      }
      for (const password of ['short', '123456789', 'x'.repeat(201), undefined, 1234567890]) {
        await assert.rejects(signUp(store, { email: 'v@example.com', password }), invalid(/Password/), String(password));
      }
      await assert.rejects(signUp(store, { email: 'v@example.com', password: PW, displayName: 'n'.repeat(81) }), invalid(/Display name/));
      await assert.rejects(signUp(store, { email: 'v@example.com', password: PW, displayName: 7 }), invalid(/Display name/));
      // Boundaries are accepted: 10 and 200 characters, 80-character name (control characters do not count).
      await signUp(store, { email: 'v10@example.com', password: 'x'.repeat(10), displayName: `${'n'.repeat(80)}\u0007` });
      await signUp(store, { email: 'v200@example.com', password: 'x'.repeat(200) });
      const after = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM accounts');
      assert.equal(Number(after!.n), Number(before!.n) + 2, 'refused sign-ups leave no account behind');
    });

    test('duplicate email is refused, whatever its case and spacing, with no orphan account', async () => {
      await signUp(store, { email: 'dup@example.com', password: PW });
      const accounts = Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM accounts'))!.n);
      await assert.rejects(signUp(store, { email: ' DUP@example.com', password: PW }), invalid(/^An account with this email already exists$/));
      assert.equal(Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM accounts'))!.n), accounts);
    });

    test('racing sign-ups with the same email: exactly one succeeds', async () => {
      const results = await Promise.allSettled(Array.from({ length: 5 }, () => signUp(store, { email: 'race@example.com', password: PW })));
      const ok = results.filter((r) => r.status === 'fulfilled');
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      assert.equal(ok.length, 1);
      assert.equal(failed.length, 4);
      for (const f of failed) assert.equal(f.reason.message, 'An account with this email already exists');
      const rows = await store.all('SELECT id FROM users WHERE email = $1', ['race@example.com']);
      assert.equal(rows.length, 1);
      const orphans = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM accounts a WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.account_id = a.id)');
      assert.equal(Number(orphans!.n), 0);
    });

    test('sign-in: right password, wrong password and unknown email', async () => {
      const { user } = await signUp(store, { email: 'carol@example.com', password: PW, displayName: 'Carol' });
      assert.deepEqual(await signIn(store, { email: ' CAROL@example.com ', password: PW }), user);
      await assert.rejects(signIn(store, { email: 'carol@example.com', password: `${PW}!` }), BAD_LOGIN);
      await assert.rejects(signIn(store, { email: 'nobody@example.com', password: PW }), BAD_LOGIN);
      await assert.rejects(signIn(store, { email: '', password: PW }), BAD_LOGIN);
      await assert.rejects(signIn(store, { email: 'carol@example.com', password: undefined }), BAD_LOGIN);
      await assert.rejects(signIn(store, { email: 'carol@example.com', password: 'x'.repeat(5000) }), BAD_LOGIN);
    });

    test('an unknown email costs a password verification like a wrong password (a dummy hash of the same cost)', async () => {
      // Timing itself is not asserted (it varies with the machine's load); what makes the two cases take the same
      // time is checked instead: an unknown email is verified against a hash made with the same argon2 parameters.
      await signUp(store, { email: 'timing@example.com', password: PW });
      const row = await store.get<{ password_hash: string }>('SELECT password_hash FROM users WHERE email = $1', ['timing@example.com']);
      const params = (phc: string) => phc.split('$').slice(1, 4).join('$'); // algorithm, version, m/t/p
      const dummy = await dummyPasswordHash();
      assert.match(dummy, /^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$/);
      assert.equal(params(dummy), params(row!.password_hash));
      await assert.rejects(signIn(store, { email: 'unknown@example.com', password: 'wrong password!' }), BAD_LOGIN);
    });

    test('principalForUser: the user account and its INFERENCE browser key, from the database', async () => {
      const { user, accountId } = await signUp(store, { email: 'dave@example.com', password: PW });
      const p = await principalForUser(store, user);
      assert.equal(p.accountId, accountId);
      assert.equal(p.accountTier, 'default');
      assert.equal(p.keyType, 'INFERENCE');
      assert.equal(p.key.type, 'INFERENCE');
      assert.equal(p.key.accountId, accountId);
      assert.equal(p.key.description, BROWSER_KEY_DESCRIPTION);
      assert.equal(p.keyId, p.key.id);
      assert.equal(p.key.browserApp, true);
      // Another key on the same account is not picked, not even one described as the browser key; renaming the
      // browser key (PATCH /api_keys can) keeps it the browser key; a revoked browser key means 401.
      await accountKeys(store, accountId).create({ type: 'ADMIN', description: 'other' });
      await accountKeys(store, accountId).create({ type: 'INFERENCE', description: BROWSER_KEY_DESCRIPTION });
      assert.equal((await principalForUser(store, user)).keyId, p.keyId);
      await accountKeys(store, accountId).update(p.keyId, { description: 'renamed by its owner' });
      assert.equal((await principalForUser(store, user)).keyId, p.keyId);
      await accountKeys(store, accountId).revoke(p.keyId);
      await assert.rejects(principalForUser(store, user), { code: 'AUTHENTICATION_FAILED_INACTIVE_KEY', status: 401 });
    });
  });

  test(`racing first sign-ups on ${backend}: exactly one admin`, async () => {
    const { store, dispose } = await freshStore(backend);
    try {
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => signUp(store, { email: `first${i}@example.com`, password: PW })));
      assert.equal(results.filter((r) => r.user.isAdmin).length, 1);
      const admins = await store.all('SELECT id FROM users WHERE is_admin = $1', [true]);
      assert.equal(admins.length, 1);
    } finally {
      await dispose();
    }
  });
}

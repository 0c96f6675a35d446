// Sessions on both backends: created hashed, read, slid, expired, ended.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Store } from '../db/store.ts';
import { createSession, endAllSessions, endSession, hashSessionToken, purgeExpiredSessions, readSession, SESSION_TTL_MS } from './sessions.ts';
import { BACKENDS, freshStore } from '../../e2e/support/stores.ts';
import { type User, signUp } from './users.ts';

const PW = 'correct horse battery';

for (const backend of BACKENDS) {
  describe(`sessions on ${backend}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    let alice: User;
    let bob: User;
    before(async () => {
      ({ store, dispose } = await freshStore(backend));
      alice = (await signUp(store, { email: 'alice@example.com', password: PW })).user;
      bob = (await signUp(store, { email: 'bob@example.com', password: PW })).user;
    });
    after(async () => dispose());

    const row = (token: string) =>
      store.get<{ user_id: string; csrf_token: string; created_at: number; expires_at: number; last_seen_at: number }>(
        'SELECT user_id, csrf_token, created_at, expires_at, last_seen_at FROM sessions WHERE id_hash = $1',
        [hashSessionToken(token)],
      );

    test('create: random base64url token, default 30-day expiry, only the hash stored', async () => {
      const t0 = Date.now();
      const s = await createSession(store, alice.id);
      assert.match(s.token, /^[A-Za-z0-9_-]{43}$/);
      assert.match(s.csrfToken, /^[A-Za-z0-9_-]{43}$/);
      assert.notEqual(s.token, s.csrfToken);
      assert.ok(s.expiresAt >= t0 + SESSION_TTL_MS && s.expiresAt <= Date.now() + SESSION_TTL_MS);
      assert.equal(SESSION_TTL_MS, 30 * 24 * 3600 * 1000);
      const r = await row(s.token);
      assert.equal(r?.user_id, alice.id);
      assert.equal(r?.csrf_token, s.csrfToken);
      assert.equal(Number(r?.expires_at), s.expiresAt);
      const dump = JSON.stringify(await store.all('SELECT * FROM sessions'));
      assert.ok(!dump.includes(s.token), 'the token never appears in the table');
      assert.ok(dump.includes(hashSessionToken(s.token)));
      const other = await createSession(store, alice.id);
      assert.notEqual(other.token, s.token);
      assert.notEqual(other.csrfToken, s.csrfToken);
    });

    test('read: the user and csrf token; unknown, malformed and missing tokens give undefined', async () => {
      const s = await createSession(store, bob.id, { ttlMs: 60_000 });
      const got = await readSession(store, s.token);
      assert.deepEqual(got, { user: bob, csrfToken: s.csrfToken, expiresAt: s.expiresAt, accountDisabledAt: null, secondFactor: false });
      const strong = await createSession(store, bob.id, { secondFactor: true });
      assert.equal((await readSession(store, strong.token))?.secondFactor, true);
      assert.equal(await readSession(store, undefined), undefined);
      assert.equal(await readSession(store, ''), undefined);
      assert.equal(await readSession(store, 'x'.repeat(43)), undefined);
      assert.equal(await readSession(store, `${s.token}x`), undefined);
      assert.equal(await readSession(store, hashSessionToken(s.token)), undefined, 'the stored hash is not a token');
    });

    test('expired sessions read as undefined and are deleted', async () => {
      const now = Date.now();
      const s = await createSession(store, alice.id, { ttlMs: 1000, now });
      assert.ok(await readSession(store, s.token, now + 999));
      assert.equal(await readSession(store, s.token, now + 1000), undefined);
      assert.equal(await row(s.token), undefined);
      assert.equal(await readSession(store, s.token, now), undefined, 'gone for good');
    });

    test('last_seen_at slides at most once a minute; expiry does not move', async () => {
      const now = Date.now();
      const s = await createSession(store, alice.id, { now });
      await readSession(store, s.token, now + 30_000);
      assert.equal(Number((await row(s.token))!.last_seen_at), now);
      await readSession(store, s.token, now + 61_000);
      assert.equal(Number((await row(s.token))!.last_seen_at), now + 61_000);
      await readSession(store, s.token, now + 100_000);
      assert.equal(Number((await row(s.token))!.last_seen_at), now + 61_000);
      await readSession(store, s.token, now + 125_000);
      const r = (await row(s.token))!;
      assert.equal(Number(r.last_seen_at), now + 125_000);
      assert.equal(Number(r.expires_at), s.expiresAt);
    });

    test('endSession ends one session; endAllSessions ends every session of one user only', async () => {
      const a1 = await createSession(store, alice.id);
      const a2 = await createSession(store, alice.id);
      const b1 = await createSession(store, bob.id);
      await endSession(store, a1.token);
      assert.equal(await readSession(store, a1.token), undefined);
      assert.ok(await readSession(store, a2.token));
      await endSession(store, a1.token); // idempotent
      await endSession(store, undefined);
      const ended = await endAllSessions(store, alice.id);
      assert.ok(ended >= 1);
      assert.equal(await readSession(store, a2.token), undefined);
      const left = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM sessions WHERE user_id = $1', [alice.id]);
      assert.equal(Number(left!.n), 0);
      assert.equal((await readSession(store, b1.token))?.user.id, bob.id);
    });

    test('purgeExpiredSessions removes only expired ones', async () => {
      const now = Date.now();
      const old = await createSession(store, bob.id, { ttlMs: 10, now: now - 1000 });
      const live = await createSession(store, bob.id, { now });
      assert.ok((await purgeExpiredSessions(store, now)) >= 1);
      assert.equal(await row(old.token), undefined);
      assert.ok(await row(live.token));
    });
  });
}

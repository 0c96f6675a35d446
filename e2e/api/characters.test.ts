// The public characters API with bearer keys, SQLite and PostgreSQL: the list (search, tags, sorts, paging) and one
// character in the public shape with `modelId` a string; reviews paginated with x-pagination headers; a user's
// private character is visible to their own account's keys (list, read, chat `character_slug`) and to nobody else
// (404 everywhere), and published ones to every key.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { accountKeys } from '../../lib/auth/keys.ts';
import { grantUsd } from '../../lib/billing/ledger.ts';
import { toMicros } from '../../lib/billing/money.ts';
import type { Character } from '../../lib/characters/characters.ts';
import { putReview } from '../../lib/characters/reviews.ts';
import { resizeAvatar } from '../../lib/characters/avatar.ts';
import { createCharacter, setAvatar, setVisibility } from '../../lib/characters/store.ts';
import { signUp, type User } from '../../lib/users/users.ts';
import { get, type Harness, post, startHarness } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';

const draft = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  description: `${name} description`,
  tags: ['pubtest'],
  instructions: `You are ${name}. SECRET-${name}`,
  firstMessage: 'Hello',
  exampleDialogue: '',
  modelId: null,
  temperature: null,
  webEnabled: false,
  adult: false,
  ...over,
});

for (const backend of ['sqlite', 'postgres'] as const)
  describe(`public characters API (${backend})`, () => {
    let h: Harness;
    let drop: (() => Promise<void>) | undefined;
    let owner: User;
    let ownerKey: string;
    let otherKey: string;
    let priv: Character;
    let pub: Character;
    const reviewers: User[] = [];
    let n = 0;

    async function user(): Promise<{ user: User; key: string }> {
      const { user } = await signUp(h.svc.store, { email: `pub${++n}-${process.pid}@example.test`, password: 'correct horse battery staple' });
      await grantUsd(h.svc.store, user.accountId, toMicros(5));
      const { secret } = await accountKeys(h.svc.store, user.accountId).create({ type: 'INFERENCE', description: 'test' });
      return { user, key: secret };
    }

    before(async () => {
      let databaseUrl: string | undefined;
      if (backend === 'postgres') ({ url: databaseUrl, drop } = await createTestDatabase());
      // The records' absolute photoUrl is built on the public origin: the harness's own, so the test can fetch it.
      h = await startHarness({ databaseUrl, publicUrl: (o) => o });
      ({ user: owner, key: ownerKey } = await user());
      ({ key: otherKey } = await user());
      priv = await createCharacter(h.svc.store, owner.id, draft('Hidden Persona'));
      pub = await setVisibility(
        h.svc.store,
        await createCharacter(h.svc.store, owner.id, draft('Shown Persona', { modelId: 'plain-model', temperature: 0.5 })),
        'public',
      );
      for (let i = 0; i < 3; i++) {
        const r = (await user()).user;
        reviewers.push(r);
        await putReview(h.svc.store, pub.id, r.id, i + 3, i === 0 ? '' : `review ${i}`);
      }
    });
    after(async () => {
      await h?.close();
      await drop?.();
    });

    const slugsOf = (r: { json: { data: { slug: string }[] } }) => r.json.data.map((c) => c.slug);

    test('the list and one character in the public shape; modelId is always a string; instructions never leave', async () => {
      const all = await get(h, '/characters?tags=pubtest', otherKey);
      assert.equal(all.status, 200, all.text);
      assert.equal(all.json.object, 'list');
      assert.deepEqual(slugsOf(all), [pub.slug]);
      const seeded = await get(h, '/characters?search=archivist', otherKey);
      assert.equal(seeded.json.data[0].modelId, 'default', 'a character without a model of its own names the default');
      const one = await get(h, `/characters/${pub.slug}`, otherKey);
      assert.equal(one.status, 200);
      const c = one.json.data;
      assert.deepEqual(Object.keys(c).sort(), [
        'adult',
        'author',
        'createdAt',
        'description',
        'featured',
        'id',
        'modelId',
        'name',
        'photoUrl',
        'shareUrl',
        'slug',
        'stats',
        'tags',
        'updatedAt',
        'webEnabled',
      ]);
      assert.equal(c.modelId, 'plain-model');
      assert.match(c.author, /^[0-9a-f]{10}$/, 'an anonymised author id');
      assert.doesNotMatch(one.text, /SECRET|@example\.test/);
      assert.deepEqual(c.stats, { averageRating: 4, imports: 0, ratingCount: 3, ratingSum: 12, userRating: null });
      const mine = await get(h, `/characters/${pub.slug}`, (await accountKeysOf(reviewers[0])).key);
      assert.equal(mine.json.data.stats.userRating, 3);
    });

    async function accountKeysOf(u: User) {
      const { secret } = await accountKeys(h.svc.store, u.accountId).create({ type: 'INFERENCE', description: 'reviewer' });
      return { key: secret };
    }

    test('sorts and paging: sortBy/sortOrder, limit/offset, and bad parameters are 400', async () => {
      const byRating = await get(h, '/characters?sortBy=highestRating&limit=1', otherKey);
      assert.deepEqual(slugsOf(byRating), [pub.slug]);
      const recent = await get(h, '/characters?sortBy=mostRecent&sortOrder=asc&limit=100', otherKey);
      assert.equal(recent.status, 200);
      assert.equal(slugsOf(recent).at(-1), pub.slug, 'the newest last when ascending');
      const page = await get(h, '/characters?limit=2&offset=2', otherKey);
      assert.equal(page.json.data.length, 2);
      assert.equal((await get(h, '/characters?sortBy=random', otherKey)).status, 400);
      assert.equal((await get(h, '/characters?limit=0', otherKey)).status, 400);
      assert.equal((await get(h, '/characters?modelId[]=plain-model', otherKey)).json.data.length, 1);
    });

    test('a private character: its owner’s keys see it and chat with it; any other key gets 404', async () => {
      assert.equal((await get(h, `/characters/${priv.slug}`, otherKey)).status, 404);
      assert.equal((await get(h, `/characters/${priv.slug}`, otherKey)).json.code, 'CHARACTER_NOT_FOUND');
      assert.equal((await get(h, `/characters/${priv.slug}/reviews`, otherKey)).status, 404);
      assert.ok(!slugsOf(await get(h, '/characters?limit=100', otherKey)).includes(priv.slug));
      assert.equal((await get(h, `/characters/${priv.slug}`, ownerKey)).status, 200);
      assert.ok(slugsOf(await get(h, '/characters?limit=100', ownerKey)).includes(priv.slug));

      const chat = (key: string, slug: string) =>
        post(h, '/chat/completions', key, {
          model: 'scripted-model',
          messages: [{ role: 'user', content: 'hi [[echo_request]]' }],
          service_parameters: { character_slug: slug },
        });
      const own = await chat(ownerKey, priv.slug);
      assert.equal(own.status, 200, own.text);
      assert.match(own.json.choices[0].message.content, /SECRET-Hidden Persona/, 'the character’s instructions reach the model');
      const other = await chat(otherKey, priv.slug);
      assert.equal(other.status, 404);
      assert.equal(other.json.code, 'CHARACTER_NOT_FOUND');
      assert.equal((await chat(otherKey, pub.slug)).status, 200);
    });

    test('reviews: paginated in the public shape with x-pagination headers; 400 for bad pages', async () => {
      const r = await get(h, `/characters/${pub.slug}/reviews?page=1&pageSize=2`, otherKey);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.object, 'list');
      assert.equal(r.json.data.length, 2);
      assert.deepEqual(r.json.pagination, { page: 1, pageSize: 2, total: 3, totalPages: 2 });
      assert.deepEqual(r.json.summary, { averageRating: 4, totalReviews: 3 });
      assert.equal(r.headers.get('x-pagination-total'), '3');
      assert.equal(r.headers.get('x-pagination-total-pages'), '2');
      assert.equal(r.headers.get('x-pagination-page'), '1');
      assert.equal(r.headers.get('x-pagination-limit'), '2');
      const item = r.json.data[0];
      assert.deepEqual(Object.keys(item).sort(), ['characterId', 'createdAt', 'id', 'isOwner', 'locale', 'message', 'rating', 'userAvatarUrl', 'username']);
      assert.equal(item.characterId, pub.id);
      assert.equal(item.isOwner, false);
      const last = await get(h, `/characters/${pub.slug}/reviews?page=2&pageSize=2`, otherKey);
      assert.equal(last.json.data.length, 1);
      assert.equal(last.json.data[0].message, null, 'a rating without text');
      assert.equal((await get(h, `/characters/${pub.slug}/reviews?page=0`, otherKey)).status, 400);
      assert.equal((await get(h, `/characters/${pub.slug}/reviews?pageSize=101`, otherKey)).status, 400);
      assert.equal((await get(h, '/characters/no-such-character/reviews', otherKey)).status, 404);
      assert.equal((await get(h, `/characters/${pub.slug}/reviews`)).status, 401);
    });

    test('photoUrl: an uploaded avatar at a public, cacheable URL once published; seeds absolute; 404 for private', async () => {
      const jpeg = await sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 20, g: 90, b: 160 } } })
        .jpeg()
        .toBuffer();
      const avatar = await resizeAvatar(jpeg);
      let pictured = await setAvatar(h.svc.store, await createCharacter(h.svc.store, owner.id, draft('Pictured Persona')), avatar);
      const photoPath = `/characters/${pictured.slug}/photo`;
      // Private: the owner's key sees the record, but the public URL would serve nothing, so there is none.
      assert.equal((await get(h, `/characters/${pictured.slug}`, ownerKey)).json.data.photoUrl, null);
      assert.equal((await get(h, photoPath)).status, 404);
      assert.equal((await get(h, photoPath, ownerKey)).status, 404, 'a key does not open a private avatar either');

      pictured = await setVisibility(h.svc.store, pictured, 'public');
      const record = (await get(h, `/characters/${pictured.slug}`, otherKey)).json.data;
      assert.equal(record.photoUrl, `${h.base}${photoPath}?v=${pictured.updatedAt}`);
      const listed = (await get(h, '/characters?search=Pictured', otherKey)).json.data.find((c: { slug: string }) => c.slug === pictured.slug);
      assert.equal(listed.photoUrl, record.photoUrl);

      // No key needed; the stored WebP with its type, a strong ETag and a shared-cache lifetime.
      const photo = await fetch(record.photoUrl);
      assert.equal(photo.status, 200);
      assert.equal(photo.headers.get('content-type'), 'image/webp');
      assert.equal(photo.headers.get('cache-control'), 'public, max-age=300');
      assert.equal(photo.headers.get('x-content-type-options'), 'nosniff');
      const etag = photo.headers.get('etag');
      assert.match(etag ?? '', /^"[A-Za-z0-9_-]+"$/);
      const bytes = Buffer.from(await photo.arrayBuffer());
      assert.ok(bytes.equals(avatar.data));
      const meta = await sharp(bytes).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 512, 512]);
      // Revalidation: 304 with no body for the same ETag (also weak, or in a list); a changed one gets the bytes.
      for (const tag of [etag!, `W/${etag}`, `"other", ${etag}`]) {
        const again = await fetch(record.photoUrl, { headers: { 'if-none-match': tag } });
        assert.equal(again.status, 304, tag);
        assert.equal((await again.arrayBuffer()).byteLength, 0);
      }
      assert.equal((await fetch(record.photoUrl, { headers: { 'if-none-match': '"stale"' } })).status, 200);
      const head = await fetch(record.photoUrl, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-length'), String(avatar.data.length));

      // Unknown, unpublished again, or published without an upload: 404 in our error body.
      const unknown = await get(h, '/characters/no-such-character/photo');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.json.code, 'NOT_FOUND');
      assert.equal((await get(h, `/characters/${pub.slug}/photo`)).status, 404);
      assert.equal((await get(h, `/characters/${pub.slug}`, otherKey)).json.data.photoUrl, null);
      await setVisibility(h.svc.store, pictured, 'private');
      assert.equal((await get(h, photoPath)).status, 404);

      // A seeded character's own picture is a path on this server: absolute on the public origin.
      const seeded = (await get(h, '/characters?search=archivist', otherKey)).json.data[0];
      assert.match(seeded.photoUrl, new RegExp(`^${h.origin}/characters/[a-z0-9-]+\\.svg$`));
    });
  });

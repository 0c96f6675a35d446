// The characters app API on a real service, SQLite and PostgreSQL: owners create, edit, publish and delete; another
// user never sees a private character (list, read, avatar, chat); one review per user with the stats kept; the
// operator unpublishes and removes reviews; cards import (V2/V3, JSON/PNG) and export round-trip; avatars become
// 512×512 WebP; a chat with a character opens with its first message and keeps its persona after the character goes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { withTextChunks } from './png.ts';
import { CARD_JSON_MAX_BYTES } from './limits.ts';
import type { RouteHandler } from '../http/app-route.ts';
import { BACKENDS, type Dash, type DashUser, startDash } from '../../e2e/support/app-dash.ts';
import { HOST, ORIGIN } from '../../e2e/support/app-requests.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64');

const v2Card = (over: Record<string, unknown> = {}) => ({
  spec: 'chara_card_v2',
  spec_version: '2.0',
  data: {
    name: 'Mira the Cartographer',
    description: 'You are Mira, {{char}}, who maps places for {{user}}.',
    personality: 'curious',
    scenario: '',
    first_mes: 'Hello {{user}}, where shall we go?',
    mes_example: '<START>\n{{user}}: Hi\n{{char}}: Hello!',
    creator_notes: 'A mapmaker. <b>bold</b>',
    system_prompt: '',
    tags: ['Maps', 'travel', 'maps'],
    character_book: { entries: [{ keys: ['x'], content: 'lore' }] },
    extensions: { other_app: { script: 'alert(1)' } },
    ...over,
  },
});

async function pngWith(chunks: { keyword: string; text: string }[], size = 64): Promise<Buffer> {
  const png = await sharp({ create: { width: size, height: size, channels: 3, background: { r: 200, g: 40, b: 40 } } })
    .png()
    .toBuffer();
  return withTextChunks(png, chunks);
}

for (const backend of BACKENDS)
  describe(`characters app API (${backend})`, () => {
    let d: Dash;
    let op: DashUser;
    let alice: DashUser;
    let bob: DashUser;

    before(async () => {
      d = await startDash(backend);
      op = await d.newUser(0);
      alice = await d.newUser(10);
      bob = await d.newUser(10);
    });
    after(() => d?.close());

    const r = () => d.routes;
    const create = (who: DashUser, body: unknown) => d.call(r().createCharacter, '/characters', { method: 'POST', body, browser: who.browser });
    const read = (who: DashUser, slug: string) => d.call(r().getCharacter, `/characters/${slug}`, { browser: who.browser }, { slug });
    const patch = (who: DashUser, slug: string, body: unknown) =>
      d.call(r().updateCharacter, `/characters/${slug}`, { method: 'PATCH', body, browser: who.browser }, { slug });
    const list = (who: DashUser, query = '') => d.call(r().characters, `/characters${query}`, { browser: who.browser });
    const slugs = async (who: DashUser, query = '') => {
      const res = await list(who, query);
      assert.equal(res.status, 200, res.text);
      return res.json.characters.map((c: { slug: string }) => c.slug) as string[];
    };
    const review = (who: DashUser, slug: string, body: unknown) =>
      d.call(r().putCharacterReview, `/characters/${slug}/review`, { method: 'PUT', body, browser: who.browser }, { slug });

    /** A request with a raw body (an image, a card), as the browser sends it. */
    async function raw(
      handler: RouteHandler,
      path: string,
      who: DashUser,
      body: Buffer | string,
      type: string,
      params: Record<string, string> = {},
      method = 'POST',
    ) {
      const headers: Record<string, string> = {
        host: HOST,
        origin: ORIGIN,
        'content-type': type,
        cookie: who.browser.cookie!,
        'x-csrf-token': who.browser.csrf!,
      };
      const res = await handler(
        new Request(`${ORIGIN}/api/app${path}`, {
          method,
          headers,
          body: method === 'GET' ? undefined : typeof body === 'string' ? body : new Uint8Array(body),
        }),
        params,
        {
          ip: who.browser.ip,
        },
      );
      const bytes = Buffer.from(await res.arrayBuffer());
      let json: any;
      try {
        json = JSON.parse(bytes.toString('utf8'));
      } catch {}
      return { status: res.status, headers: res.headers, bytes, json, text: bytes.toString('utf8') };
    }
    const importCard = (who: DashUser, body: Buffer | string, type: string) => raw(r().importCharacter, '/characters/import', who, body, type);
    const exportCard = (who: DashUser, slug: string, query: string) =>
      raw(r().exportCharacter, `/characters/${slug}/export?${query}`, who, '', 'text/plain', { slug }, 'GET');

    test('create: private by default, owned by the creator, fields cleaned; bad input is a 400 naming the field', async () => {
      const res = await create(alice, {
        name: '  Nova  ',
        description: 'Star <script>alert(1)</script> guide',
        tags: ['Space', ' space ', '#Astronomy'],
        instructions: 'You are Nova.\r\nSpeak of stars.\u0000',
        firstMessage: 'Hi {{user}}!',
        temperature: 0.7,
      });
      assert.equal(res.status, 201, res.text);
      const c = res.json.character;
      assert.equal(c.name, 'Nova');
      assert.match(c.slug, /^nova-[a-z0-9]{6}$/);
      assert.equal(c.visibility, 'private');
      assert.equal(c.isOwner, true);
      assert.equal(c.description, 'Star <script>alert(1)</script> guide', 'HTML is kept as text');
      assert.deepEqual(c.tags, ['space', 'astronomy']);
      assert.equal(c.instructions, 'You are Nova.\nSpeak of stars.');
      assert.equal(c.temperature, 0.7);
      assert.deepEqual(c.stats, { averageRating: null, ratingCount: 0, chats: 0 });
      assert.deepEqual(c.owner, { name: 'Anonymous' });

      for (const [body, param] of [
        [{ name: '', instructions: 'x' }, 'name'],
        [{ name: 'x'.repeat(81), instructions: 'x' }, 'name'],
        [{ name: 'A', instructions: 'x', tags: Array.from({ length: 13 }, (_, i) => `t${i}`) }, 'tags'],
        [{ name: 'A', instructions: 'x', tags: ['y'.repeat(33)] }, 'tags'],
        [{ name: 'A', instructions: 'x'.repeat(20_001) }, 'instructions'],
        [{ name: 'A', instructions: 'x', temperature: 2.5 }, 'temperature'],
        [{ name: 'A', instructions: 'x', visibility: 'public' }, undefined],
        [{ name: 'A' }, 'instructions'],
      ] as const) {
        const bad = await create(alice, body);
        assert.equal(bad.status, 400, `${JSON.stringify(body).slice(0, 80)} → ${bad.text}`);
        if (param) assert.match(bad.json.param, new RegExp(`^${param}`));
      }
    });

    test('private characters are invisible to others; publish shows them; only the owner edits; slugs change only while private', async () => {
      const c = (await create(alice, { name: 'Quiet One', instructions: 'Be quiet.' })).json.character;
      assert.equal((await read(bob, c.slug)).status, 404);
      assert.equal((await read(bob, c.slug)).json.code, 'CHARACTER_NOT_FOUND');
      assert.equal((await patch(bob, c.slug, { name: 'Hijack' })).status, 404);
      assert.ok(!(await slugs(bob, '?q=quiet')).includes(c.slug));
      assert.ok((await slugs(alice, '?q=quiet')).includes(c.slug));
      assert.deepEqual(await slugs(alice, '?scope=mine&q=quiet'), [c.slug]);
      assert.deepEqual(await slugs(bob, '?scope=mine&q=quiet'), []);

      const renamed = await patch(alice, c.slug, { slug: 'quiet-one' });
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal(renamed.json.character.slug, 'quiet-one');
      assert.equal((await patch(alice, 'quiet-one', { slug: 'Bad Slug!' })).status, 400);
      const other = (await create(bob, { name: 'Other', instructions: 'x' })).json.character;
      assert.equal((await patch(bob, other.slug, { slug: 'quiet-one' })).json.param, 'slug', 'a taken slug is refused');

      const pub = await patch(alice, 'quiet-one', { visibility: 'public', description: 'Now public' });
      assert.equal(pub.status, 200, pub.text);
      assert.equal(pub.json.character.visibility, 'public');
      const seen = await read(bob, 'quiet-one');
      assert.equal(seen.status, 200);
      assert.equal(seen.json.character.isOwner, false);
      assert.ok((await slugs(bob, '?q=quiet')).includes('quiet-one'));
      assert.equal((await patch(bob, 'quiet-one', { name: 'Hijack' })).status, 403);
      assert.equal((await patch(alice, 'quiet-one', { slug: 'quieter' })).status, 400, 'a published slug is fixed');

      assert.equal((await patch(alice, 'quiet-one', { visibility: 'private' })).status, 200);
      assert.equal((await read(bob, 'quiet-one')).status, 404);
    });

    test('browse: search, tags, sorts, pages with a total; the chat picker call (?q=) still works', async () => {
      const mk = async (name: string, tags: string[]) => {
        const c = (await create(alice, { name, instructions: 'x', tags })).json.character;
        await patch(alice, c.slug, { visibility: 'public' });
        await sleep(3); // distinct creation times, so "new" has one order
        return c.slug as string;
      };
      const a = await mk('Zeta Browse A', ['zbrowse', 'alpha']);
      const b = await mk('Zeta Browse B', ['zbrowse', 'beta']);
      const c = await mk('Zeta Browse C', ['zbrowse']);
      assert.deepEqual((await slugs(bob, '?tags=zbrowse,beta')).sort(), [b]);
      assert.equal((await review(bob, c, { rating: 5 })).status, 200);
      assert.equal((await review(bob, a, { rating: 2 })).status, 200);
      assert.deepEqual(await slugs(bob, '?tags=zbrowse&sort=top'), [c, a, b]);
      assert.deepEqual(await slugs(bob, '?tags=zbrowse&sort=new'), [c, b, a]);
      const page = await list(bob, '?tags=zbrowse&sort=new&limit=2&page=2');
      assert.equal(page.json.total, 3);
      assert.equal(page.json.page, 2);
      assert.deepEqual(
        page.json.characters.map((x: { slug: string }) => x.slug),
        [a],
      );
      const picker = await list(bob, '?q=');
      assert.ok(picker.json.characters.some((x: { slug: string }) => x.slug === 'ada-the-archivist'));
      assert.equal((await list(bob, '?sort=random')).status, 400);
      assert.equal((await list(bob, '?limit=500')).status, 400);
    });

    test('reviews: one per user (a second rewrites it), stats follow, the author removes theirs; others see isMine false', async () => {
      const c = (await create(alice, { name: 'Reviewed', instructions: 'x' })).json.character;
      assert.equal((await review(bob, c.slug, { rating: 4 })).status, 404, 'a private character cannot be reviewed by others');
      await patch(alice, c.slug, { visibility: 'public' });
      assert.equal((await review(bob, c.slug, { rating: 4, text: 'Good' })).status, 200);
      const again = await review(bob, c.slug, { rating: 2, text: 'Changed my mind' });
      assert.equal(again.status, 200, again.text);
      assert.equal((await review(alice, c.slug, { rating: 5 })).status, 200);
      for (const bad of [{ rating: 0 }, { rating: 6 }, { rating: 3.5 }, { rating: 3, text: 'x'.repeat(2001) }, { text: 'no rating' }]) {
        assert.equal((await review(bob, c.slug, bad)).status, 400, JSON.stringify(bad).slice(0, 60));
      }
      const page = await d.call(r().characterReviews, `/characters/${c.slug}/reviews`, { browser: alice.browser }, { slug: c.slug });
      assert.equal(page.status, 200, page.text);
      assert.equal(page.json.total, 2);
      const bobs = page.json.reviews.find((x: { text: string }) => x.text === 'Changed my mind');
      assert.equal(bobs.rating, 2);
      assert.equal(bobs.isMine, false);
      const detail = (await read(bob, c.slug)).json.character;
      assert.deepEqual(detail.stats, { averageRating: 3.5, ratingCount: 2, chats: 0 });
      assert.equal(detail.myReview.rating, 2);
      const del = await d.call(r().deleteCharacterReview, `/characters/${c.slug}/review`, { method: 'DELETE', browser: bob.browser }, { slug: c.slug });
      assert.equal(del.status, 204);
      assert.deepEqual((await read(bob, c.slug)).json.character.stats, { averageRating: 5, ratingCount: 1, chats: 0 });
    });

    test('the operator unpublishes anyone’s character and removes any review; nobody else may', async () => {
      const c = (await create(alice, { name: 'Moderated', instructions: 'x' })).json.character;
      await patch(alice, c.slug, { visibility: 'public' });
      const rev = (await review(bob, c.slug, { rating: 1, text: 'spam' })).json.review;
      const unpub = (who: DashUser) =>
        d.call(r().operatorUnpublishCharacter, `/operator/characters/${c.slug}/unpublish`, { method: 'POST', browser: who.browser }, { slug: c.slug });
      const rm = (who: DashUser) => d.call(r().operatorDeleteReview, `/operator/reviews/${rev.id}`, { method: 'DELETE', browser: who.browser }, { id: rev.id });
      const audit = async () => {
        const a = await d.call(r().operatorAudit, '/operator/audit', { browser: op.browser });
        assert.equal(a.status, 200, a.text);
        return a.json.entries as { actor: string; action: string; accountId: string; details: Record<string, unknown> }[];
      };
      const before = (await audit()).length;
      assert.equal((await unpub(bob)).status, 403);
      assert.equal((await rm(alice)).status, 403);
      assert.equal((await audit()).length, before, 'a refused attempt is not audited');
      assert.equal((await rm(op)).status, 204);
      assert.equal((await rm(op)).status, 404);
      const u = await unpub(op);
      assert.equal(u.status, 200, u.text);
      assert.equal(u.json.character.visibility, 'private');
      assert.equal((await read(bob, c.slug)).status, 404);
      assert.equal((await read(alice, c.slug)).json.character.stats.ratingCount, 0);
      // Both moderations are in the operator audit log, under the affected user's account; unpublishing a character
      // that is already private changes nothing and adds no entry.
      assert.equal((await unpub(op)).status, 200);
      const all = await audit();
      const entries = all.slice(0, all.length - before);
      assert.deepEqual(
        entries.map((e) => [e.action, e.actor, e.accountId]),
        [
          ['character_unpublish', op.email, alice.user.accountId],
          ['review_remove', op.email, bob.user.accountId],
        ],
      );
      assert.deepEqual(entries[0].details, { slug: c.slug, name: 'Moderated' });
      assert.deepEqual(entries[1].details, { slug: c.slug, character: 'Moderated', author: bob.user.displayName, rating: 1, text: 'spam' });
    });

    test('avatars: any image becomes a 512×512 WebP; wrong types and broken images are refused; private avatars stay private', async () => {
      const c = (await create(alice, { name: 'Pictured', instructions: 'x' })).json.character;
      const img = await sharp({ create: { width: 900, height: 400, channels: 3, background: { r: 10, g: 120, b: 200 } } })
        .jpeg()
        .toBuffer();
      const put = (who: DashUser, body: Buffer | string, type: string) =>
        raw(r().putCharacterAvatar, `/characters/${c.slug}/avatar`, who, body, type, { slug: c.slug }, 'PUT');
      const ok = await put(alice, img, 'image/jpeg');
      assert.equal(ok.status, 200, ok.text);
      assert.match(ok.json.character.avatarUrl, new RegExp(`^/api/app/characters/${c.slug}/avatar\\?v=\\d+$`));
      assert.equal((await put(bob, img, 'image/jpeg')).status, 404);
      assert.equal((await put(alice, img, 'image/svg+xml')).status, 415);
      assert.equal((await put(alice, Buffer.from('not an image at all'), 'image/png')).status, 400);
      assert.equal((await put(alice, Buffer.alloc(5 * 1024 * 1024 + 1, 1), 'image/png')).status, 413);

      const getAvatar = (who: DashUser) => raw(r().characterAvatar, `/characters/${c.slug}/avatar`, who, '', 'text/plain', { slug: c.slug }, 'GET');
      const mine = await getAvatar(alice);
      assert.equal(mine.status, 200);
      assert.equal(mine.headers.get('content-type'), 'image/webp');
      const meta = await sharp(mine.bytes).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 512, 512]);
      assert.equal((await getAvatar(bob)).status, 404, 'a private character’s avatar');
      await patch(alice, c.slug, { visibility: 'public' });
      assert.equal((await getAvatar(bob)).status, 200);
    });

    test('import: V2 and V3 cards as JSON and PNG; unknown fields dropped, text kept as text, private to the importer', async () => {
      const v2 = await importCard(bob, JSON.stringify(v2Card()), 'application/json');
      assert.equal(v2.status, 201, v2.text);
      const c = v2.json.character;
      assert.equal(c.name, 'Mira the Cartographer');
      assert.equal(c.visibility, 'private');
      assert.equal(c.isOwner, true);
      assert.equal(c.description, 'A mapmaker. <b>bold</b>');
      assert.equal(c.instructions, 'You are Mira, {{char}}, who maps places for {{user}}.\n\nPersonality: curious');
      assert.equal(c.firstMessage, 'Hello {{user}}, where shall we go?');
      assert.deepEqual(c.tags, ['maps', 'travel']);
      assert.doesNotMatch(JSON.stringify(c), /lore|alert\(1\)/);
      assert.equal((await read(alice, c.slug)).status, 404);

      const v3 = {
        ...v2Card({ name: 'Mira Three', nickname: 'M3', assets: [{ type: 'icon', uri: 'https://evil.example/x.png' }] }),
        spec: 'chara_card_v3',
        spec_version: '3.0',
      };
      const j3 = await importCard(bob, JSON.stringify(v3), 'application/json');
      assert.equal(j3.status, 201, j3.text);
      assert.equal(j3.json.character.name, 'Mira Three');
      assert.doesNotMatch(j3.text, /evil\.example/);

      const p2 = await importCard(bob, await pngWith([{ keyword: 'chara', text: b64(v2Card({ name: 'Png Two' })) }]), 'image/png');
      assert.equal(p2.status, 201, p2.text);
      assert.equal(p2.json.character.name, 'Png Two');
      assert.ok(p2.json.character.avatarUrl, 'the PNG becomes the avatar');
      const p3 = await importCard(
        bob,
        await pngWith([
          { keyword: 'chara', text: b64(v2Card({ name: 'Old name' })) },
          { keyword: 'ccv3', text: b64({ ...v2Card({ name: 'Png Three' }), spec: 'chara_card_v3', spec_version: '3.0' }) },
        ]),
        'image/png',
      );
      assert.equal(p3.status, 201, p3.text);
      assert.equal(p3.json.character.name, 'Png Three', 'ccv3 wins over chara');
    });

    test('import refuses malformed and oversized cards with clear 4xx answers, and creates nothing', async () => {
      const before = (await list(bob, '?scope=mine&limit=100')).json.total;
      const cases: [Buffer | string, string, number, RegExp][] = [
        ['{not json', 'application/json', 400, /not valid JSON/],
        ['[1,2]', 'application/json', 400, /JSON object/],
        [JSON.stringify({ name: 'V1 card', description: 'x' }), 'application/json', 400, /V1 card/],
        [JSON.stringify({ spec: 'something_else', data: { name: 'x' } }), 'application/json', 400, /chara_card_v2/],
        [JSON.stringify({ spec: 'chara_card_v2' }), 'application/json', 400, /data/],
        [JSON.stringify(v2Card({ name: '   ' })), 'application/json', 400, /data\.name is empty/],
        [JSON.stringify(v2Card({ first_mes: 42 })), 'application/json', 400, /data\.first_mes/],
        [JSON.stringify(v2Card({ tags: 'a,b' })), 'application/json', 400, /data\.tags/],
        [await pngWith([]), 'image/png', 400, /no "chara" or "ccv3"/],
        [await pngWith([{ keyword: 'chara', text: '%%%not base64%%%' }]), 'image/png', 400, /base64/],
        [Buffer.from('GIF89a not a png'), 'image/png', 400, /PNG signature/],
        [JSON.stringify(v2Card()), 'text/html', 415, /application\/json or image\/png/],
        [JSON.stringify(v2Card({ description: 'x'.repeat(CARD_JSON_MAX_BYTES) })), 'application/json', 413, /larger than/],
        [Buffer.alloc(8 * 1024 * 1024 + 1), 'image/png', 413, /larger than/],
      ];
      const pngWithBadCrc = await pngWith([{ keyword: 'chara', text: b64(v2Card()) }]);
      pngWithBadCrc[pngWithBadCrc.length - 13] ^= 0xff; // the last byte of the chara chunk's CRC
      cases.push([pngWithBadCrc, 'image/png', 400, /checksum/]);
      const truncated = (await pngWith([{ keyword: 'chara', text: b64(v2Card()) }])).subarray(0, 200);
      cases.push([truncated, 'image/png', 400, /malformed/]);
      for (const [body, type, status, message] of cases) {
        const res = await importCard(bob, body, type);
        assert.equal(res.status, status, `${type} ${String(body).slice(0, 40)} → ${res.text.slice(0, 200)}`);
        assert.match(res.json.error, message);
      }
      assert.equal((await list(bob, '?scope=mine&limit=100')).json.total, before);
    });

    test('export round-trips: V2/V3 as JSON and PNG import back as the same character; only the owner exports', async () => {
      const made = await create(alice, {
        name: 'Round Trip',
        description: 'Goes and comes back',
        tags: ['loop', 'test'],
        instructions: 'You are {{char}}.\nLine two.',
        firstMessage: 'Hi {{user}}',
        exampleDialogue: '{{user}}: a\n{{char}}: b',
        modelId: 'plain-model',
        temperature: 1.25,
        webEnabled: true,
      });
      const c = made.json.character;
      const fields = (x: Record<string, unknown>) => ({
        name: x.name,
        description: x.description,
        tags: x.tags,
        instructions: x.instructions,
        firstMessage: x.firstMessage,
        exampleDialogue: x.exampleDialogue,
        modelId: x.modelId,
        temperature: x.temperature,
        webEnabled: x.webEnabled,
      });
      for (const format of ['v2', 'v3'])
        for (const as of ['json', 'png']) {
          const file = await exportCard(alice, c.slug, `format=${format}&as=${as}`);
          assert.equal(file.status, 200, file.text.slice(0, 200));
          assert.match(file.headers.get('content-disposition') ?? '', new RegExp(`^attachment; filename="Round Trip\\.card-${format}\\.${as}"`));
          if (as === 'json') assert.equal(file.json.spec, format === 'v2' ? 'chara_card_v2' : 'chara_card_v3');
          else assert.equal(file.headers.get('content-type'), 'image/png');
          const back = await importCard(bob, file.bytes, as === 'json' ? 'application/json' : 'image/png');
          assert.equal(back.status, 201, back.text);
          assert.deepEqual(fields(back.json.character), fields(c), `${format} ${as}`);
        }
      assert.equal((await exportCard(bob, c.slug, 'format=v2&as=json')).status, 404);
      await patch(alice, c.slug, { visibility: 'public' });
      assert.equal((await exportCard(bob, c.slug, 'format=v2&as=json')).status, 403);
      assert.equal((await exportCard(alice, c.slug, 'format=v9')).status, 400);
    });

    test('a chat with a character opens with its first message and keeps its persona after the character is deleted', async () => {
      const c = (
        await create(alice, {
          name: 'Greeter',
          instructions: 'You are {{char}}, greeting {{user}}.',
          firstMessage: 'Welcome, {{user}}! I am {{char}}.',
          exampleDialogue: 'EXAMPLE-LINE',
        })
      ).json.character;
      const conv = await d.call(r().createConversation, '/conversations', { method: 'POST', body: { characterSlug: c.slug }, browser: alice.browser });
      assert.equal(conv.status, 201, conv.text);
      const id = conv.json.id;
      const opened = await d.call(r().getConversation, `/conversations/${id}`, { browser: alice.browser }, { id });
      assert.equal(opened.json.messages.length, 1);
      const greeting = opened.json.messages[0];
      assert.deepEqual([greeting.role, greeting.parentId, greeting.content], ['assistant', null, 'Welcome, User! I am Greeter.']);
      assert.equal((await read(alice, c.slug)).json.character.stats.chats, 1);
      // Another user cannot start a chat with a private character.
      const refused = await d.call(r().createConversation, '/conversations', { method: 'POST', body: { characterSlug: c.slug }, browser: bob.browser });
      assert.equal(refused.status, 404);

      const del = await d.call(r().deleteCharacter, `/characters/${c.slug}`, { method: 'DELETE', browser: alice.browser }, { slug: c.slug });
      assert.equal(del.status, 204);
      assert.equal((await read(alice, c.slug)).status, 404);
      const sent = await d.call(
        r().sendMessage,
        `/conversations/${id}/messages`,
        { method: 'POST', body: { parentId: greeting.id, content: 'hi [[echo_request]]' }, browser: alice.browser },
        { id },
      );
      assert.equal(sent.status, 201, sent.text);
      let answer: { status: string; content: string } | undefined;
      for (let i = 0; i < 200; i++) {
        const now = await d.call(r().getConversation, `/conversations/${id}`, { browser: alice.browser }, { id });
        answer = now.json.messages.find((m: { id: string }) => m.id === sent.json.assistant.id);
        if (answer?.status !== 'streaming') break;
        await sleep(25);
      }
      assert.equal(answer?.status, 'complete', JSON.stringify(answer));
      const prompt = JSON.parse(answer!.content) as { role: string; content: string }[];
      assert.equal(prompt[0].role, 'system');
      assert.match(prompt[0].content, /You are Greeter, greeting User\./);
      assert.match(prompt[0].content, /EXAMPLE-LINE/);
      assert.deepEqual(
        prompt.slice(1).map((m) => m.role),
        ['assistant', 'user'],
      );
      assert.notEqual(sent.json.conversation.title, 'New chat', 'the first user message still names the chat');
    });

    test('a character made to search the web starts chats with web search on auto, unless the chat says otherwise', async () => {
      const c = (await create(alice, { name: 'Searcher', instructions: 'x', webEnabled: true })).json.character;
      const start = (settings?: unknown) =>
        d.call(r().createConversation, '/conversations', {
          method: 'POST',
          body: { characterSlug: c.slug, ...(settings ? { settings } : {}) },
          browser: alice.browser,
        });
      assert.equal((await start()).json.settings.webSearch, 'auto');
      assert.equal((await start({ webSearch: 'off' })).json.settings.webSearch, 'off');
      assert.equal((await read(alice, c.slug)).json.character.stats.chats, 2);
    });

    test('preview: the draft answers through the metered chat path, billed to the caller, nothing stored', async () => {
      const convsBefore = await d.h.svc.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM conversations WHERE user_id = $1', [bob.user.id]);
      const usageBefore = await d.h.svc.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM usage WHERE account_id = $1', [bob.user.accountId]);
      const res = await d.call(r().previewCharacter, '/characters/preview', {
        method: 'POST',
        body: {
          draft: { name: 'Draft', instructions: 'You are {{char}}.', firstMessage: 'Hello!' },
          messages: [{ role: 'user', content: 'hey [[echo_request]]' }],
        },
        browser: bob.browser,
      });
      assert.equal(res.status, 200, res.text);
      const sent = JSON.parse(res.json.reply) as { role: string; content: string }[];
      assert.deepEqual(
        sent.map((m) => m.role),
        ['system', 'assistant', 'user'],
      );
      assert.match(sent[0].content, /You are Draft\./);
      assert.ok(res.json.usage.costUsd > 0);
      await d.h.svc.ledger.drain();
      const usageAfter = await d.h.svc.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM usage WHERE account_id = $1', [bob.user.accountId]);
      assert.equal(Number(usageAfter?.n), Number(usageBefore?.n) + 1);
      const convsAfter = await d.h.svc.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM conversations WHERE user_id = $1', [bob.user.id]);
      assert.equal(Number(convsAfter?.n), Number(convsBefore?.n));
      for (const body of [
        { draft: { instructions: 'x' }, messages: [] },
        { draft: {}, messages: [{ role: 'user', content: 'x' }] },
        { draft: { instructions: 'x' }, messages: [{ role: 'assistant', content: 'x' }] },
      ]) {
        assert.equal((await d.call(r().previewCharacter, '/characters/preview', { method: 'POST', body, browser: bob.browser })).status, 400);
      }
      const broke = await d.newUser(0);
      const poor = await d.call(r().previewCharacter, '/characters/preview', {
        method: 'POST',
        body: { draft: { instructions: 'x' }, messages: [{ role: 'user', content: 'hi' }] },
        browser: broke.browser,
      });
      assert.equal(poor.status, 402, poor.text);
    });

    test('one user may own at most 500 characters: the next create or import is a 400 that says so', async () => {
      const heavy = await d.newUser(0);
      await d.h.svc.store.tx(async (q) => {
        for (let i = 0; i < 500; i++)
          await q.run(
            `INSERT INTO characters (id, slug, name, system_prompt, tags, owner_user_id, visibility, created_at, updated_at)
             VALUES ($1, $1, 'Bulk', '', '[]', $2, 'private', 1, 1)`,
            [`bulk-${i}-${heavy.user.id}`, heavy.user.id],
          );
      });
      const made = await create(heavy, { name: 'One too many', instructions: 'x' });
      assert.equal(made.status, 400);
      assert.match(made.json.error, /500 characters/);
      assert.equal((await importCard(heavy, JSON.stringify(v2Card()), 'application/json')).status, 400);
    });

    test('signed out: 401; writes without the CSRF token: 403', async () => {
      assert.equal((await d.call(r().characters, '/characters')).status, 401);
      const noCsrf = await d.call(r().createCharacter, '/characters', {
        method: 'POST',
        body: { name: 'x', instructions: 'x' },
        browser: alice.browser,
        noCsrf: true,
      });
      assert.equal(noCsrf.status, 403);
    });
  });

// The image mode's routes on a real service (SQLite and PostgreSQL), with the catalogue's demo generator, ESRGAN and
// the demo background remover, plus an upstream model on a loopback fake of the OpenAI images API that answers its
// first request and holds the rest until the caller goes away: variants billed one image each and listed on one chat
// message as they are made; the image itself (ETag, download); vary, upscale and background removal into the chat or
// the gallery; another user's image is unknown (404) everywhere; writes need the CSRF token; bad input is a 400 that
// names the field and stores, places and bills nothing; credit that runs out midway ends the message with the error
// and keeps what was made; the chat's stop ends a generation at once, releasing the call in flight.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { type Harness, startHarness } from '../../e2e/support/harness.ts';
import { createTestDatabase } from '../../e2e/support/pg.ts';
import { grantUsd } from '../billing/ledger.ts';
import { toMicros } from '../billing/money.ts';
import { userImages } from '../conversations/images.ts';
import { DEFAULT_CATALOGUE } from '../models/catalogue.ts';
import { createSession, SESSION_COOKIE } from '../users/sessions.ts';
import { signUp, type User } from '../users/users.ts';
import type { AppConversationWithMessages, AppMessage } from '../wire.ts';
import type { AppImage, ImageModelsReport, ImageTurnResponse } from './wire.ts';
import { appRequest, type Browser, caller } from '../../e2e/support/app-requests.ts';

const DEMO = 'lagoon-demo-image';
const HELD = 'held-image';
const catalogue = JSON.parse(fs.readFileSync(DEFAULT_CATALOGUE, 'utf8')).models as { id: string }[];
const defaults = ['lagoon-demo-image', 'esrgan-slim', 'lanczos-upscale', 'lagoon-demo-background-remove'].map((id) => catalogue.find((m) => m.id === id)!);
const heldModel = (baseUrl: string) => ({
  id: HELD,
  name: 'Upstream images',
  type: 'image',
  tier: 'M',
  pricing: { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0, per_image_usd: 0.01 },
  context_length: 1,
  image: { max_side: 1024, negative_prompt: false },
  engine: { kind: 'openai-images', baseUrl, model: 'gpt-image-1', timeoutMs: 60_000 },
});
/** A demo image at 256×256: 0.002 per image plus 8 steps at 0.0001. */
const DEMO_MICROS = 2800;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let seq = 0;

/** Whether a 400 body names the field: its `param`, or a validation issue's path or unrecognized key. */
const names = (body: any, field: string): boolean =>
  body?.param === field || (body?.issues ?? []).some((i: { path: string[]; keys?: string[] }) => i.path[0] === field || i.keys?.includes(field));

/** The OpenAI images API: the first generation is answered at once, every later one is held until its caller leaves (reads answer at once). */
interface HeldUpstream {
  url: string;
  requests: number;
  aborted: number;
  close(): Promise<void>;
}
async function startHeldUpstream(): Promise<HeldUpstream> {
  const state = { requests: 0, aborted: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      // The server's engine checks read the upstream (GET); only generations count and are held.
      if (req.method !== 'POST') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
      const n = ++state.requests;
      if (n > 1) {
        res.on('close', () => state.aborted++);
        return;
      }
      const png = await sharp({ create: { width: 1024, height: 1024, channels: 3, background: '#2a9d8f' } })
        .png()
        .toBuffer();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ created: 1, data: [{ b64_json: png.toString('base64') }] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get requests() {
      return state.requests;
    },
    get aborted() {
      return state.aborted;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A picture on a flat background, as the demo background remover takes. */
const flatDisc = () =>
  sharp({ create: { width: 256, height: 256, channels: 3, background: '#f0f0f0' } })
    .composite([{ input: Buffer.from('<svg width="256" height="256"><circle cx="128" cy="128" r="60" fill="#d7263d"/></svg>') }])
    .png()
    .toBuffer();

interface TestUser {
  user: User;
  browser: Browser;
}

for (const backend of ['sqlite', 'postgres'] as const)
  describe(`image app routes (${backend})`, () => {
    let h: Harness;
    let upstream: HeldUpstream;
    let drop: (() => Promise<void>) | undefined;
    let routes: NonNullable<Harness['app']>['routes'];
    let call: ReturnType<typeof caller>;
    let alice: TestUser;
    let bob: TestUser;

    before(async () => {
      upstream = await startHeldUpstream();
      let databaseUrl: string | undefined;
      if (backend === 'postgres') ({ url: databaseUrl, drop } = await createTestDatabase());
      h = await startHarness({ app: true, databaseUrl, models: [...defaults, heldModel(upstream.url)] });
      routes = h.app!.routes;
      call = caller(h.svc.store);
      alice = await newUser(1);
      bob = await newUser(1);
    });
    after(async () => {
      await h?.close();
      await upstream?.close();
      await drop?.();
    });

    async function newUser(usd: number): Promise<TestUser> {
      const { user } = await signUp(h.svc.store, { email: `images${++seq}-${process.pid}@example.test`, password: 'correct horse battery staple' });
      if (usd > 0) await grantUsd(h.svc.store, user.accountId, toMicros(usd));
      const s = await createSession(h.svc.store, user.id);
      return { user, browser: { ip: '192.0.2.40', cookie: `${SESSION_COOKIE}=${s.token}`, csrf: s.csrfToken } };
    }
    const newChat = async (u: TestUser) => {
      const r = await call(routes.createConversation, '/conversations', { method: 'POST', body: {}, browser: u.browser });
      assert.equal(r.status, 201, r.text);
      return r.json.id as string;
    };
    const chat = async (u: TestUser, id: string) => {
      const r = await call(routes.getConversation, `/conversations/${id}`, { browser: u.browser }, { id });
      assert.equal(r.status, 200, r.text);
      return r.json as AppConversationWithMessages;
    };
    const generate = (u: TestUser, body: unknown, o: { noCsrf?: boolean; headers?: Record<string, string> } = {}) =>
      call(routes.generateImages, '/images/generate', { method: 'POST', body, browser: u.browser, ...o });
    const act = (u: TestUser, what: 'vary' | 'upscale' | 'remove-background', id: string, body: unknown = {}) => {
      const handler = what === 'vary' ? routes.varyImage : what === 'upscale' ? routes.upscaleImage : routes.removeImageBackground;
      return call(handler, `/images/${id}/${what}`, { method: 'POST', body, browser: u.browser }, { id });
    };
    const file = async (u: TestUser, id: string, query = '', headers: Record<string, string> = {}) => {
      const res = await routes.imageFile(appRequest(`/images/${id}/file${query}`, { browser: u.browser, headers }), { id }, { ip: u.browser.ip });
      return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
    };
    const gallery = async (u: TestUser, query = '') => {
      const r = await call(routes.listImages, `/images${query}`, { browser: u.browser });
      assert.equal(r.status, 200, r.text);
      return r.json.images as AppImage[];
    };
    const balances = async (u: TestUser) => {
      const b = await h.svc.ledger.balances(u.user.accountId);
      return { usd: b.usd, usdHeld: b.usdHeld };
    };
    const usage = async (u: TestUser) => {
      await h.svc.ledger.drain();
      const rows = await h.svc.store.all<any>(
        'SELECT request_id, model_id, endpoint, unit, quantity, usd FROM usage WHERE account_id = $1 ORDER BY created_at',
        [u.user.accountId],
      );
      return rows.map((r) => ({ ...r, quantity: Number(r.quantity), usd: Number(r.usd) }));
    };
    const storedFor = (u: TestUser) =>
      h.svc.store.all<{ id: string; request_id: string }>('SELECT id, request_id FROM user_images WHERE user_id = $1', [u.user.id]);
    /** The message once it is no longer being generated. */
    const untilDone = async (u: TestUser, conversationId: string, messageId: string): Promise<AppMessage> => {
      for (let i = 0; i < 1200; i++) {
        const m = (await chat(u, conversationId)).messages.find((x) => x.id === messageId);
        if (m && m.status !== 'streaming') return m;
        await sleep(50);
      }
      throw new Error(`message ${messageId} never finished`);
    };

    test('models: generators, upscalers and background removers, each demo named as one; the styles; signed out 401', async () => {
      const r = await call(routes.imageModels, '/images/models', { browser: alice.browser });
      assert.equal(r.status, 200, r.text);
      const report = r.json as ImageModelsReport;
      assert.equal(report.unavailable, null);
      assert.deepEqual(
        report.models.map((m) => [m.id, m.kind, m.demo, m.isDefault]),
        [
          [DEMO, 'generate', true, true],
          [HELD, 'generate', false, false],
          ['esrgan-slim', 'upscale', false, true],
          ['lanczos-upscale', 'upscale', false, false],
          ['lagoon-demo-background-remove', 'background-remove', true, true],
        ],
      );
      const demo = report.models[0];
      assert.match(demo.description ?? '', /demo/i);
      assert.deepEqual([demo.maxVariants, demo.aspectRatios.includes('16:9'), demo.resolutions, demo.sizes], [4, true, ['1K', '2K'], []]);
      const held = report.models[1];
      assert.deepEqual([held.aspectRatios, held.sizes.includes('1024x1024'), held.sizes.includes('1280x1280')], [[], true, false]);
      assert.deepEqual(report.styles, ['Anime', 'Photographic']);
      assert.equal((await call(routes.imageModels, '/images/models')).status, 401);
    });

    test('generate: variants one call each, listed on one message as made; billed per image; the file, its ETag and download', async () => {
      const before = await balances(alice);
      const conversationId = await newChat(alice);
      const prompt = 'a teal lagoon at sunset';
      const r = await generate(alice, { conversationId, parentId: null, model: DEMO, prompt, width: 256, height: 256, variants: 3, seed: 1000 });
      assert.equal(r.status, 201, r.text);
      const turn = r.json as ImageTurnResponse;
      assert.equal(turn.images.length, 1, 'the first image comes with the answer');
      assert.deepEqual([turn.user?.content, turn.user?.parentId, turn.assistant?.status, turn.assistant?.modelId], [prompt, null, 'streaming', DEMO]);
      assert.equal(turn.conversation?.title, prompt);
      const first = turn.images[0];
      assert.deepEqual(
        [first.seed, first.variant, first.variants, first.width, first.height, first.contentType, first.action, first.demo, first.messageId],
        [1000, 0, 3, 256, 256, 'image/webp', 'generate', true, turn.assistant?.id],
      );

      const done = await untilDone(alice, conversationId, turn.assistant!.id);
      assert.equal(done.status, 'complete', JSON.stringify(done.error));
      const mine = await gallery(alice, `?messageId=${done.id}`);
      assert.deepEqual(
        mine.map((i) => [i.seed, i.variant, i.prompt]),
        [
          [1000, 0, prompt],
          [1001, 1, prompt],
          [1002, 2, prompt],
        ],
      );
      // The message lists its images (references, no bytes) and their cost.
      assert.deepEqual(
        done.attachments.map((a) => [a.id, a.type, a.previewUrl]),
        mine.map((i) => [i.id, 'image/webp', undefined]),
      );
      assert.deepEqual(done.usage && [done.usage.costUsd, done.usage.totalTokens], [0.0084, 0]);

      // Three usage rows, one per image, each the request that made it; the balance down by exactly that.
      const rows = await usage(alice);
      assert.deepEqual(
        rows.map((x) => [x.model_id, x.endpoint, x.unit, x.quantity, x.usd]),
        Array(3).fill([DEMO, '/image/generate', 'image', 1, DEMO_MICROS]),
      );
      const stored = await storedFor(alice);
      assert.deepEqual(stored.map((s) => s.request_id).sort(), rows.map((x) => x.request_id).sort());
      assert.deepEqual(await balances(alice), { usd: before.usd - 3 * DEMO_MICROS, usdHeld: 0 });

      const f = await file(alice, first.id);
      assert.equal(f.status, 200);
      assert.equal(f.headers.get('content-type'), 'image/webp');
      assert.equal(f.headers.get('content-disposition'), null);
      const meta = await sharp(f.bytes).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height, f.bytes.length], ['webp', 256, 256, first.bytes]);
      const etag = f.headers.get('etag')!;
      const again = await file(alice, first.id, '', { 'if-none-match': etag });
      assert.deepEqual([again.status, again.bytes.length], [304, 0]);
      const dl = await file(alice, first.id, '?download=1');
      assert.match(dl.headers.get('content-disposition') ?? '', /^attachment; filename="a teal lagoon at sunset 1000\.webp"/);
      assert.deepEqual(dl.bytes, f.bytes);
      const one = await call(routes.getImage, `/images/${first.id}`, { browser: alice.browser }, { id: first.id });
      assert.deepEqual([one.status, one.json.image.url], [200, `/api/app/images/${first.id}/file`]);
      assert.deepEqual(
        (await gallery(alice, `?conversationId=${conversationId}`)).map((i) => i.id),
        mine.map((i) => i.id),
      );
    });

    test('vary, upscale and remove the background: into the chat after its last message, or into the gallery only', async () => {
      const conversationId = await newChat(alice);
      const r = await generate(alice, { conversationId, parentId: null, model: DEMO, prompt: 'red mountains', width: 256, height: 256, seed: 77 });
      assert.equal(r.status, 201, r.text);
      const turn = r.json as ImageTurnResponse;
      assert.equal(turn.assistant?.status, 'complete', 'one variant: done with the answer');
      const src = turn.images[0];

      const before = (await usage(alice)).length;
      const vary = await act(alice, 'vary', src.id, { conversationId, parentId: turn.assistant!.id });
      assert.equal(vary.status, 201, vary.text);
      const varied = vary.json as ImageTurnResponse;
      const v = varied.images[0];
      assert.deepEqual([v.action, v.prompt, v.sourceId, v.width, v.height, v.model], ['vary', 'red mountains', src.id, 256, 256, DEMO]);
      assert.notEqual(v.seed, 77);
      assert.deepEqual([varied.user?.parentId, varied.user?.content, varied.assistant?.parentId], [turn.assistant!.id, 'Vary: red mountains', varied.user?.id]);

      const up = await act(alice, 'upscale', src.id, { conversationId, parentId: varied.assistant!.id });
      assert.equal(up.status, 201, up.text);
      const upscaled = (up.json as ImageTurnResponse).images[0];
      assert.deepEqual(
        [upscaled.action, upscaled.model, upscaled.width, upscaled.height, upscaled.contentType, upscaled.sourceId, upscaled.seed, upscaled.demo],
        ['upscale', 'esrgan-slim', 512, 512, 'image/png', src.id, null, false],
      );
      assert.equal((up.json as ImageTurnResponse).user?.content, 'Upscale 2×');
      const png = await file(alice, upscaled.id);
      assert.deepEqual([(await sharp(png.bytes).metadata()).width, png.headers.get('content-type')], [512, 'image/png']);

      // The demo background remover refuses a picture that is not on a flat background: a 400, nothing billed or kept.
      const stored = (await storedFor(alice)).length;
      const refused = await act(alice, 'remove-background', src.id, { conversationId, parentId: (up.json as ImageTurnResponse).assistant!.id });
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.json.error, /flat backgrounds/);
      assert.equal((await storedFor(alice)).length, stored);

      // A flat one (put in the gallery here as the store would keep it) is cut out, into the gallery only.
      const flat = await userImages(h.svc.store, alice.user.id).add({
        sourceId: null,
        action: 'generate',
        modelId: DEMO,
        prompt: 'a red disc',
        params: {},
        seed: 5,
        width: 256,
        height: 256,
        contentType: 'image/png',
        requestId: 'test-seeded',
        costUsd: 0,
        costDiem: 0,
        data: await flatDisc(),
      });
      const cut = await act(alice, 'remove-background', flat.id);
      assert.equal(cut.status, 201, cut.text);
      const cutOut = (cut.json as ImageTurnResponse).images[0];
      assert.deepEqual(
        [cutOut.conversationId, cutOut.messageId, cutOut.action, cutOut.demo, (cut.json as ImageTurnResponse).assistant],
        [null, null, 'background-remove', true, undefined],
      );
      const alpha = await sharp((await file(alice, cutOut.id)).bytes).metadata();
      assert.deepEqual([alpha.format, alpha.hasAlpha], ['png', true]);

      const rows = (await usage(alice)).slice(before);
      assert.deepEqual(
        rows.map((x) => [x.endpoint, x.model_id, x.quantity]),
        [
          ['/image/generate', DEMO, 1],
          ['/image/upscale', 'esrgan-slim', 1],
          ['/image/background-remove', 'lagoon-demo-background-remove', 1],
        ],
      );
      const messages = (await chat(alice, conversationId)).messages;
      assert.deepEqual(
        messages.map((m) => [m.role, m.attachments.length]),
        [
          ['user', 0],
          ['assistant', 1],
          ['user', 0],
          ['assistant', 1],
          ['user', 0],
          ['assistant', 1],
        ],
      );
      // A gallery item is newest first; an upscaled image cannot be varied (it has no prompt of its own to vary).
      assert.equal((await gallery(alice, '?limit=1'))[0].id, cutOut.id);
      const notVaried = await act(alice, 'vary', upscaled.id);
      assert.deepEqual([notVaried.status, notVaried.json.param], [400, 'id']);
    });

    test("another user's image is unknown (404) everywhere, and so is their chat; nothing is billed to either", async () => {
      const conversationId = await newChat(alice);
      const r = await generate(alice, { conversationId, parentId: null, model: DEMO, prompt: 'mine alone', width: 256, height: 256 });
      assert.equal(r.status, 201, r.text);
      const id = (r.json as ImageTurnResponse).images[0].id;
      const aliceUsage = (await usage(alice)).length;
      const bobBefore = await balances(bob);

      assert.deepEqual(await gallery(bob), []);
      assert.deepEqual(await gallery(bob, `?conversationId=${conversationId}`), []);
      assert.equal((await call(routes.getImage, `/images/${id}`, { browser: bob.browser }, { id })).status, 404);
      assert.equal((await file(bob, id)).status, 404);
      assert.equal((await file(bob, id, '', { 'if-none-match': `"${id}"` })).status, 404, 'not even a 304');
      for (const what of ['vary', 'upscale', 'remove-background'] as const) {
        const x = await act(bob, what, id);
        assert.deepEqual([x.status, x.json.code], [404, 'NOT_FOUND'], `${what}: ${x.text}`);
      }
      assert.equal((await call(routes.deleteImage, `/images/${id}`, { method: 'DELETE', browser: bob.browser }, { id })).status, 404);
      // Bob's own image cannot be put into Alice's chat, nor can he generate into it.
      const into = await generate(bob, { conversationId, parentId: null, model: DEMO, prompt: 'intruder', width: 256, height: 256 });
      assert.deepEqual([into.status, into.json.code], [404, 'NOT_FOUND']);
      for (const made of ['00000000-0000-4000-8000-000000000000', 'not-an-image', "x'; DROP TABLE user_images; --", 'a'.repeat(5000)]) {
        assert.equal((await file(alice, made)).status, 404, made.slice(0, 20));
        assert.equal((await act(alice, 'upscale', made)).status, 404, made.slice(0, 20));
      }
      assert.deepEqual(await balances(bob), bobBefore);
      assert.deepEqual(await usage(bob), []);
      assert.equal((await usage(alice)).length, aliceUsage);
      // Alice still has it, and can delete it: then it is gone for her too.
      assert.equal((await file(alice, id)).status, 200);
      assert.equal((await call(routes.deleteImage, `/images/${id}`, { method: 'DELETE', browser: alice.browser }, { id })).status, 204);
      assert.equal((await file(alice, id)).status, 404);
      assert.ok(!(await gallery(alice)).some((i) => i.id === id));
    });

    test('writes need the session and its CSRF token; reads need the session', async () => {
      const conversationId = await newChat(alice);
      const body = { conversationId, parentId: null, model: DEMO, prompt: 'no token', width: 256, height: 256 };
      assert.equal((await generate(alice, body, { noCsrf: true })).status, 403);
      assert.equal((await generate(alice, body, { headers: { origin: 'https://evil.example' } })).status, 403);
      assert.equal((await call(routes.generateImages, '/images/generate', { method: 'POST', body })).status, 401);
      assert.deepEqual((await chat(alice, conversationId)).messages, [], 'nothing was made');
      for (const handler of [routes.listImages, routes.imageModels]) assert.equal((await call(handler, '/images')).status, 401);

      const r = await generate(alice, body);
      assert.equal(r.status, 201, r.text);
      const id = (r.json as ImageTurnResponse).images[0].id;
      const noToken = await call(routes.deleteImage, `/images/${id}`, { method: 'DELETE', browser: alice.browser, noCsrf: true }, { id });
      assert.equal(noToken.status, 403);
      const upscale = await call(routes.upscaleImage, `/images/${id}/upscale`, { method: 'POST', body: {}, browser: alice.browser, noCsrf: true }, { id });
      assert.equal(upscale.status, 403);
      assert.equal((await file(alice, id)).status, 200, 'still there');
      assert.equal((await routes.imageFile(appRequest(`/images/${id}/file`), { id }, { ip: '192.0.2.41' })).status, 401);
    });

    test('bad input is a 400 naming the field (or 404/402/415), and stores, places and bills nothing', async () => {
      const carol = await newUser(1);
      const conversationId = await newChat(carol);
      const good = { conversationId, parentId: null, model: DEMO, prompt: 'a reef', width: 256, height: 256 };
      const cases: [unknown, number, string | undefined][] = [
        [{ ...good, prompt: undefined }, 400, 'prompt'],
        [{ ...good, prompt: '   ' }, 400, 'prompt'],
        [{ ...good, prompt: 'x'.repeat(1501) }, 400, 'prompt'],
        [{ ...good, variants: 5 }, 400, 'variants'],
        [{ ...good, variants: 0 }, 400, 'variants'],
        [{ ...good, seed: -1 }, 400, 'seed'],
        [{ ...good, seed: 1.5 }, 400, 'seed'],
        [{ ...good, width: 250 }, 400, 'width'],
        [{ ...good, width: undefined, height: undefined, aspectRatio: '2:1' }, 400, 'aspectRatio'],
        [{ ...good, width: undefined, height: undefined, aspectRatio: '1:1', resolution: '8K' }, 400, 'resolution'],
        [{ ...good, style: 'Baroque' }, 400, 'style'],
        [{ ...good, colour: 'blue' }, 400, 'colour'],
        [{ ...good, parentId: undefined }, 400, 'parentId'],
        [{ ...good, model: 'esrgan-slim' }, 400, 'model'],
        [{ ...good, model: 'scripted-model' }, 400, 'model'],
        [{ ...good, model: 'no-such-model' }, 404, undefined],
        [{ ...good, conversationId: 'no-such-chat' }, 404, undefined],
        [{ ...good, parentId: 'no-such-message' }, 404, undefined],
        [[good], 400, undefined],
        ['{"model":', 400, undefined],
      ];
      for (const [body, status, param] of cases) {
        const r = await generate(carol, body);
        assert.equal(r.status, status, `${JSON.stringify(body).slice(0, 100)}: ${r.text}`);
        if (param) assert.ok(names(r.json, param), `names ${param}: ${r.text}`);
      }
      const asText = await routes.generateImages(
        appRequest('/images/generate', { method: 'POST', body: JSON.stringify(good), browser: carol.browser, headers: { 'content-type': 'text/plain' } }),
        {},
        { ip: carol.browser.ip },
      );
      assert.equal(asText.status, 415);
      const scale = await act(carol, 'upscale', '00000000-0000-4000-8000-000000000000', { scale: 3 });
      assert.deepEqual([scale.status, names(scale.json, 'scale')], [400, true]);
      const half = await act(carol, 'upscale', '00000000-0000-4000-8000-000000000000', { conversationId });
      assert.deepEqual([half.status, names(half.json, 'parentId')], [400, true]);
      // No credit: 402, nothing held, stored or placed.
      const poor = await newUser(0);
      const poorChat = await newChat(poor);
      const broke = await generate(poor, { ...good, conversationId: poorChat });
      assert.equal(broke.status, 402, broke.text);
      for (const u of [carol, poor]) {
        assert.deepEqual(await storedFor(u), []);
        assert.deepEqual(await usage(u), []);
      }
      assert.deepEqual((await chat(carol, conversationId)).messages, []);
      assert.deepEqual((await chat(poor, poorChat)).messages, []);
      assert.deepEqual(await balances(carol), { usd: 1_000_000, usdHeld: 0 });
    });

    test('credit that runs out midway ends the message with the error, keeping (and billing) what was made', async () => {
      const dan = await newUser(0);
      await grantUsd(h.svc.store, dan.user.accountId, 2 * DEMO_MICROS + 400);
      const conversationId = await newChat(dan);
      const r = await generate(dan, { conversationId, parentId: null, model: DEMO, prompt: 'three wishes', width: 256, height: 256, variants: 3 });
      assert.equal(r.status, 201, r.text);
      const done = await untilDone(dan, conversationId, (r.json as ImageTurnResponse).assistant!.id);
      // The last variants run together: the refused one hears CREDIT_HELD when its sibling still held the credit.
      assert.deepEqual([done.status, done.error?.status, done.attachments.length], ['error', 402, 2]);
      assert.ok(['INSUFFICIENT_BALANCE', 'CREDIT_HELD'].includes(done.error?.code ?? ''), done.error?.code);
      assert.equal((await usage(dan)).length, 2);
      assert.equal((await storedFor(dan)).length, 2);
      assert.deepEqual(await balances(dan), { usd: 400, usdHeld: 0 });
    });

    test("the chat's stop ends a generation at once: the call in flight is released, what was made is kept", async () => {
      const erin = await newUser(1);
      const conversationId = await newChat(erin);
      const seen = upstream.requests;
      const r = await generate(erin, { conversationId, parentId: null, model: HELD, prompt: 'slow waves', variants: 3 });
      assert.equal(r.status, 201, r.text);
      const assistant = (r.json as ImageTurnResponse).assistant!;
      assert.equal(assistant.status, 'streaming');
      for (let i = 0; i < 1200 && upstream.requests < seen + 2; i++) await sleep(25);
      assert.equal(upstream.requests, seen + 2, 'the second variant is at the upstream');
      // A next turn must wait for this one.
      const blocked = await generate(erin, { conversationId, parentId: assistant.id, model: DEMO, prompt: 'meanwhile', width: 256, height: 256 });
      assert.deepEqual([blocked.status, blocked.json.param], [400, 'parentId']);

      const stop = await call(routes.stopMessage, `/messages/${assistant.id}/stop`, { method: 'POST', browser: erin.browser }, { id: assistant.id });
      assert.equal(stop.status, 200, stop.text);
      assert.equal(stop.json.message.status, 'stopped');
      for (let i = 0; i < 1200 && upstream.aborted < 1; i++) await sleep(25);
      assert.equal(upstream.aborted, 1, 'the held call was given up');
      for (let i = 0; i < 1200 && (await balances(erin)).usdHeld > 0; i++) await sleep(25);
      assert.deepEqual(await balances(erin), { usd: 1_000_000 - 10_000, usdHeld: 0 });
      const m = await untilDone(erin, conversationId, assistant.id);
      assert.deepEqual([m.status, m.attachments.length], ['stopped', 1]);
      assert.equal((await usage(erin)).length, 1);
      assert.equal(upstream.requests, seen + 2, 'no third variant was asked for');
    });
  });

describe('image app routes in remote mode', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({
      app: true,
      models: defaults,
      env: { INFERENCE_BASE_URL: 'http://127.0.0.1:9/v1', INFERENCE_API_KEY: 'sk-test-remote-key-0000000000' },
    });
  });
  after(() => h?.close());

  test('the page is told images are unavailable, and a generation is refused without holding anything', async () => {
    const call = caller(h.svc.store, () => ['sk-test-remote-key-0000000000']);
    const { user } = await signUp(h.svc.store, { email: `remote-images-${process.pid}@example.test`, password: 'correct horse battery staple' });
    await grantUsd(h.svc.store, user.accountId, toMicros(1));
    const s = await createSession(h.svc.store, user.id);
    const browser = { ip: '192.0.2.42', cookie: `${SESSION_COOKIE}=${s.token}`, csrf: s.csrfToken };
    const models = await call(h.app!.routes.imageModels, '/images/models', { browser });
    assert.deepEqual([models.status, models.json.models], [200, []]);
    assert.match(models.json.unavailable, /external API/);
    const r = await call(h.app!.routes.generateImages, '/images/generate', {
      method: 'POST',
      browser,
      body: { conversationId: 'x', parentId: null, model: DEMO, prompt: 'x' },
    });
    assert.equal(r.status, 404, r.text);
    assert.equal((await h.svc.ledger.balances(user.accountId)).usdHeld, 0);
  });
});

// The video page's routes on a real service (SQLite and PostgreSQL), with the catalogue's demo video model and an
// upstream model on the loopback fake of the OpenAI videos API (which holds a `[[hold]]` job until released): the
// models and the quote; a queue billed exactly its quote, listed with its progress figures, whose clip streams whole,
// by ranges (206, 416) and as a download; another user's job is unknown (404); writes need the CSRF token; bad input
// is a 400 that names the field and holds nothing; deleting a running job cancels it and releases its hold; and in
// remote mode the page is told video is unavailable.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { catalogueModel, type Harness, startHarness } from '../../e2e/support/harness.ts';
import { createTestDatabase } from '../../e2e/support/pg.ts';
import { probeClip } from '../../e2e/support/video.ts';
import { type FakeOpenAIVideos, fakeVideoModel, startFakeOpenAIVideos } from '../../e2e/support/video-upstreams.ts';
import { grantUsd } from '../billing/ledger.ts';
import { toMicros } from '../billing/money.ts';
import { createSession, SESSION_COOKIE } from '../users/sessions.ts';
import { signUp, type User } from '../users/users.ts';
import type { AppVideoJob, VideoJobsReport, VideoModelsReport } from './wire.ts';
import { appRequest, type Browser, caller } from '../../e2e/support/app-requests.ts';
import { parseRange } from './app-routes.ts';

const DEMO = 'lagoon-demo-video';
const HELD = 'held-video';
const demoModel = catalogueModel(DEMO);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let seq = 0;

/** Whether a 400 body names the field: its `param`, or a validation issue's path or unrecognized key. */
const names = (body: any, field: string): boolean =>
  body?.param === field || (body?.issues ?? []).some((i: { path: string[]; keys?: string[] }) => i.path[0] === field || i.keys?.includes(field));

interface TestUser {
  user: User;
  browser: Browser;
}

test('parseRange: one range, a suffix, open ends; several ranges or garbage are ignored; past the end is unsatisfiable', () => {
  assert.deepEqual(parseRange('bytes=0-99', 1000), { start: 0, end: 99 });
  assert.deepEqual(parseRange('bytes=900-', 1000), { start: 900, end: 999 });
  assert.deepEqual(parseRange('bytes=-100', 1000), { start: 900, end: 999 });
  assert.deepEqual(parseRange('bytes=990-5000', 1000), { start: 990, end: 999 });
  assert.equal(parseRange('bytes=1000-', 1000), 'unsatisfiable');
  assert.equal(parseRange('bytes=5-4', 1000), 'unsatisfiable');
  assert.equal(parseRange('bytes=-0', 1000), 'unsatisfiable');
  assert.equal(parseRange('bytes=0-1,5-6', 1000), undefined);
  assert.equal(parseRange('items=0-1', 1000), undefined);
  assert.equal(parseRange(null, 1000), undefined);
});

for (const backend of ['sqlite', 'postgres'] as const)
  describe(`video app routes (${backend})`, () => {
    let h: Harness;
    let upstream: FakeOpenAIVideos;
    let drop: (() => Promise<void>) | undefined;
    let routes: NonNullable<Harness['app']>['routes'];
    let call: ReturnType<typeof caller>;
    let alice: TestUser;
    let bob: TestUser;

    before(async () => {
      upstream = await startFakeOpenAIVideos();
      let databaseUrl: string | undefined;
      if (backend === 'postgres') ({ url: databaseUrl, drop } = await createTestDatabase());
      h = await startHarness({ app: true, databaseUrl, models: [demoModel, fakeVideoModel(upstream.url, { id: HELD })] });
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
      const { user } = await signUp(h.svc.store, { email: `video${++seq}-${process.pid}@example.test`, password: 'correct horse battery staple' });
      if (usd > 0) await grantUsd(h.svc.store, user.accountId, toMicros(usd));
      const s = await createSession(h.svc.store, user.id);
      return { user, browser: { ip: '192.0.2.30', cookie: `${SESSION_COOKIE}=${s.token}`, csrf: s.csrfToken } };
    }
    const list = async (u: TestUser) => {
      const r = await call(routes.listVideoJobs, '/video/jobs', { browser: u.browser });
      assert.equal(r.status, 200, r.text);
      return (r.json as VideoJobsReport).jobs;
    };
    const queue = (u: TestUser, body: unknown, o: { noCsrf?: boolean } = {}) =>
      call(routes.queueVideo, '/video/jobs', { method: 'POST', body, browser: u.browser, ...o });
    const media = async (u: TestUser, id: string, headers: Record<string, string> = {}, query = '') => {
      const res = await routes.videoMedia(appRequest(`/video/jobs/${id}/media${query}`, { browser: u.browser, headers }), { id }, { ip: u.browser.ip });
      return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
    };
    const remove = (u: TestUser, id: string, o: { noCsrf?: boolean } = {}) =>
      call(routes.deleteVideoJob, `/video/jobs/${id}`, { method: 'DELETE', browser: u.browser, ...o }, { id });
    const balances = async (u: TestUser) => {
      const b = await h.svc.ledger.balances(u.user.accountId);
      return { usd: b.usd, usdHeld: b.usdHeld };
    };
    const untilJob = async (u: TestUser, id: string, ok: (j: AppVideoJob) => boolean, what: string) => {
      for (let i = 0; i < 1200; i++) {
        const job = (await list(u)).find((j) => j.id === id);
        if (job && ok(job)) return job;
        await sleep(50);
      }
      throw new Error(`job ${id} never became ${what}`);
    };

    test('models: the video models only, the demo marked as such, with what each offers and costs', async () => {
      const r = await call(routes.videoModels, '/video/models', { browser: alice.browser });
      assert.equal(r.status, 200, r.text);
      const report = r.json as VideoModelsReport;
      assert.equal(report.unavailable, null);
      assert.deepEqual(
        report.models.map((m) => [m.id, m.demo, m.isDefault]),
        [
          [DEMO, true, true],
          [HELD, false, false],
        ],
      );
      const demo = report.models[0];
      assert.match(demo.description ?? '', /demo/i);
      assert.deepEqual(
        [demo.perSecondUsd, demo.durations, demo.defaultDuration, demo.resolutions, demo.defaultAspectRatio, demo.audio],
        [0.01, [3, 5, 8, 10], 5, ['256p', '480p', '720p'], '1:1', true],
      );
      assert.equal((await call(routes.videoModels, '/video/models')).status, 401, 'signed out');
    });

    test('quote: the price of the shape, from the code that bills it; a bad query is a 400 naming the field', async () => {
      const q = await call(routes.videoQuote, `/video/quote?model=${DEMO}&duration=5&aspect_ratio=16:9&resolution=720p&audio=true`, { browser: alice.browser });
      assert.deepEqual([q.status, q.json], [200, { usd: 0.05 }]);
      assert.deepEqual((await call(routes.videoQuote, `/video/quote?model=${HELD}&duration=4`, { browser: alice.browser })).json, { usd: 0.4 });
      for (const [query, param] of [
        [`model=${DEMO}&duration=7`, 'duration'],
        [`model=${DEMO}&duration=five`, 'duration'],
        [`model=${DEMO}&duration=5&resolution=4k`, 'resolution'],
        [`model=${DEMO}&duration=5&aspect_ratio=2:1`, 'aspect_ratio'],
        [`model=${DEMO}&duration=5&audio=yes`, 'audio'],
        [`model=${DEMO}&duration=5&colour=blue`, 'colour'],
        ['duration=5', 'model'],
      ]) {
        const r = await call(routes.videoQuote, `/video/quote?${query}`, { browser: alice.browser });
        assert.equal(r.status, 400, `${query}: ${r.text}`);
        assert.ok(names(r.json, param), `${query} names ${param}: ${r.text}`);
      }
      const text = await call(routes.videoQuote, '/video/quote?model=scripted-model&duration=5', { browser: alice.browser });
      assert.deepEqual([text.status, text.json.code], [400, 'INVALID_MODEL']);
      assert.equal((await call(routes.videoQuote, '/video/quote?model=no-such-model&duration=5', { browser: alice.browser })).status, 404);
    });

    test('queue: billed exactly the quote, listed with progress figures, the clip whole, by ranges and as a download', async () => {
      const before = await balances(alice);
      const q = await queue(alice, { model: DEMO, prompt: 'a lagoon at dawn', duration: 5, aspect_ratio: '1:1', resolution: '256p' });
      assert.equal(q.status, 201, q.text);
      const job = q.json.job as AppVideoJob;
      assert.match(job.id, /^[0-9a-f-]{36}$/);
      assert.deepEqual(
        [job.model, job.prompt, job.seconds, job.aspectRatio, job.resolution, job.width, job.height, job.audio, job.mediaUrl],
        [DEMO, 'a lagoon at dawn', 5, '1:1', '256p', 256, 256, true, null],
      );
      assert.ok(['queued', 'running', 'succeeded'].includes(job.status), job.status);
      assert.ok(Number.isInteger(job.averageExecutionTime) && job.averageExecutionTime > 0, `average ${job.averageExecutionTime}`);
      assert.ok(Number.isInteger(job.executionDuration) && job.executionDuration >= 0);

      const done = await untilJob(alice, job.id, (j) => j.status !== 'queued' && j.status !== 'running', 'finished');
      assert.equal(done.status, 'succeeded', JSON.stringify(done.error));
      assert.equal(done.mediaType, 'video/mp4');
      assert.equal(done.mediaUrl, `/api/app/video/jobs/${job.id}/media`);
      assert.equal(done.downloadUrl, `/api/app/video/jobs/${job.id}/media?download=1`);
      assert.equal(done.executionDuration, 0, 'a finished job has no running attempt');
      const report = (await call(routes.listVideoJobs, '/video/jobs', { browser: alice.browser })).json as VideoJobsReport;
      assert.equal(report.retentionMs, 86_400_000, 'how long the clip is kept (LAGOON_MEDIA_RETENTION_SECONDS)');

      // A job shows `succeeded` as its settlement starts (billing `settling`, finished again after a crash), so the
      // usage row may follow by a moment on a loaded machine: wait for it, never past a bound.
      let rows: any[] = [];
      for (let i = 0; i < 200 && rows.length === 0; i++) {
        if (i) await sleep(25);
        await h.svc.ledger.drain();
        rows = await h.svc.store.all<any>('SELECT unit, quantity, usd, endpoint FROM usage WHERE request_id = $1', [job.id]);
      }
      assert.deepEqual(
        rows.map((x) => ({ ...x, quantity: Number(x.quantity), usd: Number(x.usd) })),
        [{ unit: 'second', quantity: 5, usd: 50_000, endpoint: '/video/queue' }],
      );
      assert.deepEqual(await balances(alice), { usd: before.usd - 50_000, usdHeld: 0 });

      const whole = await media(alice, job.id);
      assert.equal(whole.status, 200);
      assert.equal(whole.headers.get('content-type'), 'video/mp4');
      assert.equal(whole.headers.get('accept-ranges'), 'bytes');
      assert.equal(whole.headers.get('content-length'), String(whole.bytes.length));
      assert.equal(whole.headers.get('content-disposition'), null);
      assert.equal(whole.bytes.length, done.mediaBytes);
      const clip = await probeClip(whole.bytes);
      assert.ok(Math.abs(clip.duration - 5) < 0.1, `duration ${clip.duration}`);

      const first = await media(alice, job.id, { range: 'bytes=0-99' });
      assert.equal(first.status, 206);
      assert.equal(first.headers.get('content-range'), `bytes 0-99/${whole.bytes.length}`);
      assert.deepEqual(first.bytes, whole.bytes.subarray(0, 100));
      const tail = await media(alice, job.id, { range: 'bytes=-10' });
      assert.equal(tail.status, 206);
      assert.deepEqual(tail.bytes, whole.bytes.subarray(whole.bytes.length - 10));
      const past = await media(alice, job.id, { range: `bytes=${whole.bytes.length}-` });
      assert.equal(past.status, 416);
      assert.equal(past.headers.get('content-range'), `bytes */${whole.bytes.length}`);

      const download = await media(alice, job.id, {}, '?download=1');
      assert.equal(download.status, 200);
      assert.match(download.headers.get('content-disposition') ?? '', /^attachment; filename="a lagoon at dawn\.mp4"/);
      assert.deepEqual(download.bytes, whole.bytes);

      // Still there after any number of plays; deleting removes the clip and the row from the list.
      const del = await remove(alice, job.id);
      assert.equal(del.status, 204, del.text);
      assert.equal(
        (await list(alice)).some((j) => j.id === job.id),
        false,
      );
      assert.equal((await media(alice, job.id)).status, 404);
      assert.equal((await remove(alice, job.id)).status, 404);
      assert.deepEqual(await balances(alice), { usd: before.usd - 50_000, usdHeld: 0 }, 'deleting a finished clip refunds nothing');
    });

    test("another user's job is unknown (404): not listed, not played, not deleted; made-up ids too", async () => {
      const q = await queue(alice, { model: DEMO, prompt: 'mine alone', duration: 3, resolution: '256p' });
      assert.equal(q.status, 201, q.text);
      const id = q.json.job.id as string;
      await untilJob(alice, id, (j) => j.status === 'succeeded', 'succeeded');
      assert.deepEqual(await list(bob), []);
      assert.equal((await media(bob, id)).status, 404);
      const del = await remove(bob, id);
      assert.deepEqual([del.status, del.json.code], [404, 'NOT_FOUND']);
      for (const made of ['00000000-0000-4000-8000-000000000000', 'not-a-job', "x'; DROP TABLE jobs; --", 'a'.repeat(5000)]) {
        assert.equal((await media(alice, made)).status, 404, made.slice(0, 20));
        assert.equal((await remove(alice, made)).status, 404, made.slice(0, 20));
      }
      // Alice still has it, whole.
      assert.equal((await media(alice, id)).status, 200);
      assert.equal((await remove(alice, id)).status, 204);
    });

    test('writes need the session and its CSRF token; reads need the session', async () => {
      const body = { model: DEMO, prompt: 'no token', duration: 3, resolution: '256p' };
      const noToken = await queue(alice, body, { noCsrf: true });
      assert.equal(noToken.status, 403, noToken.text);
      const foreign = await call(routes.queueVideo, '/video/jobs', {
        method: 'POST',
        body,
        browser: alice.browser,
        headers: { origin: 'https://evil.example' },
      });
      assert.equal(foreign.status, 403, foreign.text);
      const anonymous = await call(routes.queueVideo, '/video/jobs', { method: 'POST', body });
      assert.equal(anonymous.status, 401);
      assert.deepEqual(await list(alice), [], 'nothing was queued');
      for (const handler of [routes.listVideoJobs, routes.videoQuote]) assert.equal((await call(handler, '/video/jobs')).status, 401);

      const q = await queue(alice, body);
      assert.equal(q.status, 201, q.text);
      const id = q.json.job.id as string;
      assert.equal((await remove(alice, id, { noCsrf: true })).status, 403);
      assert.equal((await list(alice)).length, 1, 'still there');
      await untilJob(alice, id, (j) => j.status === 'succeeded', 'succeeded');
      assert.equal((await remove(alice, id)).status, 204);
    });

    test('bad input is a 400 naming the field (or 404/402/415), and holds or queues nothing', async () => {
      const carol = await newUser(1);
      const good = { model: DEMO, prompt: 'a reef', duration: 3, resolution: '256p' };
      const cases: [unknown, number, string | undefined][] = [
        [{ ...good, prompt: undefined }, 400, 'prompt'],
        [{ ...good, prompt: '   ' }, 400, 'prompt'],
        [{ ...good, prompt: 'x'.repeat(2501) }, 400, 'prompt'],
        [{ ...good, duration: 4 }, 400, 'duration'],
        [{ ...good, duration: '3s' }, 400, 'duration'],
        [{ ...good, duration: 2.5 }, 400, 'duration'],
        [{ ...good, resolution: '4k' }, 400, 'resolution'],
        [{ ...good, aspect_ratio: '2:1' }, 400, 'aspect_ratio'],
        [{ ...good, audio: 'yes' }, 400, 'audio'],
        [{ ...good, image_url: 'http://127.0.0.1/x.png' }, 400, 'image_url'],
        [{ ...good, model: 'scripted-model' }, 400, 'model'],
        [{ ...good, model: 'no-such-model' }, 404, undefined],
        [[good], 400, undefined],
        ['{"model":', 400, undefined],
      ];
      for (const [body, status, param] of cases) {
        const r = await queue(carol, body);
        assert.equal(r.status, status, `${JSON.stringify(body).slice(0, 80)}: ${r.text}`);
        if (param) assert.ok(names(r.json, param), `names ${param}: ${r.text}`);
      }
      const asText = await routes.queueVideo(
        appRequest('/video/jobs', { method: 'POST', body: JSON.stringify(good), browser: carol.browser, headers: { 'content-type': 'text/plain' } }),
        {},
        { ip: carol.browser.ip },
      );
      assert.equal(asText.status, 415);
      // No credit: 402, nothing held or queued.
      const poor = await newUser(0);
      const broke = await queue(poor, good);
      assert.equal(broke.status, 402, broke.text);
      assert.deepEqual(await list(carol), []);
      assert.deepEqual(await list(poor), []);
      assert.deepEqual(await balances(carol), { usd: 1_000_000, usdHeld: 0 });
    });

    test('delete while running: the job is cancelled upstream, its hold released, nothing charged', async () => {
      const dave = await newUser(1);
      const q = await queue(dave, { model: HELD, prompt: 'a slow wave [[hold]]', duration: 4 });
      assert.equal(q.status, 201, q.text);
      const id = q.json.job.id as string;
      const running = await untilJob(dave, id, (j) => j.status === 'running' && j.executionDuration > 0, 'running');
      assert.ok(running.averageExecutionTime > 0);
      assert.equal(running.mediaUrl, null);
      assert.equal((await media(dave, id)).status, 404, 'no clip yet');
      assert.equal((await balances(dave)).usdHeld, 400_000, 'the quote is held');
      let video = [...upstream.videos.values()].find((v) => v.prompt === 'a slow wave [[hold]]');
      for (let i = 0; i < 400 && !video; i++) {
        await sleep(50);
        video = [...upstream.videos.values()].find((v) => v.prompt === 'a slow wave [[hold]]');
      }
      assert.ok(video, 'the upstream has the job');

      assert.equal((await remove(dave, id)).status, 204);
      assert.deepEqual(await list(dave), []);
      await h.svc.ledger.drain();
      assert.deepEqual(await balances(dave), { usd: 1_000_000, usdHeld: 0 });
      const rows = await h.svc.store.all<any>('SELECT usd FROM usage WHERE request_id = $1', [id]);
      assert.deepEqual(rows, [], 'no usage row');
      // The worker hears of the cancellation and deletes the upstream video (best effort, so polled for).
      for (let i = 0; i < 400 && !upstream.deleted.includes(video.id); i++) await sleep(50);
      assert.ok(upstream.deleted.includes(video.id), 'the upstream video is deleted');
    });
  });

describe('video app routes in remote mode', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({
      app: true,
      models: [demoModel],
      env: { INFERENCE_BASE_URL: 'http://127.0.0.1:9/v1', INFERENCE_API_KEY: 'sk-test-remote-key-0000000000' },
    });
  });
  after(() => h?.close());

  test('the page is told video is unavailable, and a queue is refused without holding anything', async () => {
    const call = caller(h.svc.store, () => ['sk-test-remote-key-0000000000']);
    const { user } = await signUp(h.svc.store, { email: `remote-video-${process.pid}@example.test`, password: 'correct horse battery staple' });
    await grantUsd(h.svc.store, user.accountId, toMicros(1));
    const s = await createSession(h.svc.store, user.id);
    const browser = { ip: '192.0.2.31', cookie: `${SESSION_COOKIE}=${s.token}`, csrf: s.csrfToken };
    const models = await call(h.app!.routes.videoModels, '/video/models', { browser });
    assert.equal(models.status, 200);
    assert.equal(models.json.models.length, 0);
    assert.match(models.json.unavailable, /external API/);
    const q = await call(h.app!.routes.queueVideo, '/video/jobs', { method: 'POST', browser, body: { model: DEMO, prompt: 'x', duration: 5 } });
    assert.equal(q.status, 404, q.text);
    assert.equal((await h.svc.ledger.balances(user.accountId)).usdHeld, 0);
  });
});

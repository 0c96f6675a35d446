// Video jobs through the real server on the demo engine (the catalogue's own lagoon-demo-video): quote, queue,
// progress, the MP4 (checked with ffprobe), billing exactly the quote, complete and 404, on SQLite and PostgreSQL;
// then the 400s, 401/402s, rate limits, wallets, references, and retention.
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { grantUsd } from '../../lib/billing/ledger.ts';
import { ensureWallet } from '../../lib/wallet/wallets.ts';
import { catalogueModel, type Harness, get, post, startHarness } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';
import { probeClip, retrieveOnce, retrieveWhenDone, solidPng } from '../support/video.ts';
import { evmWallet, signInHeader, walletEnv } from '../wallet/clients.ts';

const DEMO = 'lagoon-demo-video';
const demoModel = catalogueModel(DEMO);
/** A silent demo model that takes no references and makes only 2 s clips. */
const silentModel = {
  ...demoModel,
  id: 'silent-demo-video',
  name: 'Silent demo video',
  traits: [],
  pricing: { ...demoModel.pricing, per_second_usd: 0.02, per_second_diem: 0.02 },
  video: { durations: [2], resolutions: ['256p'], aspect_ratios: ['16:9'], audio: false },
};

const held = async (h: Harness, accountId: string) => {
  const b = await h.svc.ledger.balances(accountId);
  return { usd: b.usd, usdHeld: b.usdHeld };
};

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`video jobs on ${backend}`, () => {
    let h: Harness;
    let dropDb = async () => {};
    before(async () => {
      let databaseUrl: string | undefined;
      if (backend === 'postgres') {
        const db = await createTestDatabase();
        databaseUrl = db.url;
        dropDb = db.drop;
      }
      h = await startHarness({ models: [demoModel, silentModel], databaseUrl });
    });
    after(async () => {
      await h?.close();
      await dropDb();
    });

    test('quote, queue, progress, a 5 s 480² H.264 clip with sound, billed exactly the quote; complete deletes it', async () => {
      const { key, accountId } = await h.newAccount({ usd: 1 });
      const quote = await post(h, '/video/quote', key, { model: DEMO, duration: '5s', resolution: '480p', aspect_ratio: '1:1' });
      assert.equal(quote.status, 200, quote.text);
      assert.deepEqual(quote.json, { quote: 0.05 });

      const q = await post(h, '/video/queue', key, { model: DEMO, prompt: 'a lagoon at dawn', duration: '5s', resolution: '480p', aspect_ratio: '1:1' });
      assert.equal(q.status, 200, q.text);
      assert.equal(q.json.model, DEMO);
      assert.match(q.json.queue_id, /^[0-9a-f-]{36}$/);
      assert.equal(q.headers.get('x-service-model-id'), DEMO);
      assert.equal(q.headers.get('x-ratelimit-limit-requests'), '40', 'the spec’s video queue budget');
      assert.equal(q.headers.get('x-service-balance-usd'), '1.000000');
      // The quote is held while the job is open.
      const during = await held(h, accountId);
      assert.ok(during.usdHeld === 50_000 || during.usdHeld === 0, `held ${during.usdHeld}`);

      const r = await retrieveWhenDone(h.base, key, DEMO, q.json.queue_id);
      assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.equal(r.contentType, 'video/mp4');
      for (const p of r.progress) {
        assert.equal(p.status, 'PROCESSING');
        assert.ok(Number.isInteger(p.average_execution_time) && p.average_execution_time > 0);
        assert.ok(Number.isInteger(p.execution_duration) && p.execution_duration >= 0);
      }
      const clip = await probeClip(r.bytes!);
      assert.ok(Math.abs(clip.duration - 5) < 0.1, `duration ${clip.duration}`);
      assert.deepEqual({ ...clip.video }, { codec_type: 'video', codec_name: 'h264', width: 480, height: 480 });
      assert.equal(clip.audio?.codec_name, 'aac');

      // Billed once: the quote, in seconds, on one usage row; nothing stays held.
      const rows = await h.svc.store.all<any>('SELECT unit, quantity, usd, endpoint, model_id FROM usage WHERE request_id = $1', [q.json.queue_id]);
      assert.deepEqual(
        rows.map((x) => ({ ...x, quantity: Number(x.quantity), usd: Number(x.usd) })),
        [{ unit: 'second', quantity: 5, usd: 50_000, endpoint: '/video/queue', model_id: DEMO }],
      );
      let after = await held(h, accountId);
      for (let i = 0; i < 50 && after.usdHeld !== 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        after = await held(h, accountId);
      }
      assert.deepEqual(after, { usd: 950_000, usdHeld: 0 });
      assert.equal(Number((await h.svc.store.get<any>('SELECT COUNT(*) AS n FROM holds'))!.n), 0);

      // Retrieve again: the media stay until complete.
      const again = await retrieveOnce(h.base, { authorization: `Bearer ${key}` }, { model: DEMO, queue_id: q.json.queue_id });
      assert.equal(again.bytes?.length, r.bytes!.length);
      const done = await post(h, '/video/complete', key, { model: DEMO, queue_id: q.json.queue_id });
      assert.deepEqual([done.status, done.json], [200, { success: true }]);
      const gone = await post(h, '/video/retrieve', key, { model: DEMO, queue_id: q.json.queue_id });
      assert.equal(gone.status, 404);
      assert.equal(gone.json.code, 'NOT_FOUND');
      const job = await h.svc.store.get<any>('SELECT media_path FROM jobs WHERE id = $1', [q.json.queue_id]);
      assert.equal(fs.existsSync(h.svc.jobs.media.resolve(job.media_path)), false, 'the file is deleted');
      // Completing again is harmless; the charge is unchanged.
      assert.equal((await post(h, '/video/complete', key, { model: DEMO, queue_id: q.json.queue_id })).status, 200);
      assert.equal((await held(h, accountId)).usd, 950_000);
    });

    test("the public wallet client's retrieve: queue_id alone (the job knows its model) and delete_after_retrieval", async () => {
      const { key } = await h.newAccount({ usd: 1 });
      const other = await h.newAccount({ usd: 1 });
      const q = await post(h, '/video/queue', key, { model: DEMO, prompt: 'alone', duration: 3, resolution: '256p' });
      assert.equal(q.status, 200, q.text);
      const foreign = await post(h, '/video/retrieve', other.key, { queue_id: q.json.queue_id });
      assert.deepEqual([foreign.status, foreign.json.code], [404, 'NOT_FOUND']);
      let r = await retrieveOnce(h.base, { authorization: `Bearer ${key}` }, { queue_id: q.json.queue_id, delete_after_retrieval: true });
      for (let i = 0; i < 900 && r.json?.status === 'PROCESSING'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        r = await retrieveOnce(h.base, { authorization: `Bearer ${key}` }, { queue_id: q.json.queue_id, delete_after_retrieval: true });
      }
      assert.equal(r.contentType, 'video/mp4', JSON.stringify(r.json));
      let after = await post(h, '/video/retrieve', key, { queue_id: q.json.queue_id });
      for (let i = 0; i < 50 && after.status === 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        after = await post(h, '/video/retrieve', key, { queue_id: q.json.queue_id });
      }
      assert.equal(after.status, 404, 'deleted after its retrieval');
    });

    test('delete_media_on_completion: the bytes once, then 404', async () => {
      const { key } = await h.newAccount({ usd: 1 });
      const q = await post(h, '/video/queue', key, { model: DEMO, prompt: 'once', duration: 3, resolution: '256p' });
      assert.equal(q.status, 200, q.text);
      const r = await retrieveWhenDone(h.base, key, DEMO, q.json.queue_id, { extra: { delete_media_on_completion: true } });
      assert.equal(r.contentType, 'video/mp4');
      const clip = await probeClip(r.bytes!);
      assert.deepEqual([clip.video?.width, clip.video?.height, Math.round(clip.duration)], [256, 256, 3]);
      let after = await post(h, '/video/retrieve', key, { model: DEMO, queue_id: q.json.queue_id });
      for (let i = 0; i < 50 && after.status === 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        after = await post(h, '/video/retrieve', key, { model: DEMO, queue_id: q.json.queue_id });
      }
      assert.equal(after.status, 404);
    });

    test("another account's job, or the job under another model, is unknown (404)", async () => {
      const a = await h.newAccount({ usd: 1 });
      const b = await h.newAccount({ usd: 1 });
      const q = await post(h, '/video/queue', a.key, { model: 'silent-demo-video', prompt: 'mine', duration: '2s' });
      assert.equal(q.status, 200, q.text);
      for (const [key, model] of [
        [b.key, 'silent-demo-video'],
        [a.key, DEMO],
      ]) {
        const r = await post(h, '/video/retrieve', key, { model, queue_id: q.json.queue_id });
        assert.equal(r.status, 404, r.text);
        assert.equal((await post(h, '/video/complete', key, { model, queue_id: q.json.queue_id })).status, 404);
      }
      assert.equal((await post(h, '/video/retrieve', a.key, { model: DEMO, queue_id: 'no-such-job' })).status, 404);
      const r = await retrieveWhenDone(h.base, a.key, 'silent-demo-video', q.json.queue_id);
      // What the browser app lists: the account's own jobs, surviving a reload (they are rows).
      const listed = await h.svc.jobs.list('video', a.accountId);
      assert.deepEqual(
        listed.map((j) => [j.queue_id, j.status, j.request.prompt, j.request.seconds, j.media_type]),
        [[q.json.queue_id, 'succeeded', 'mine', 2, 'video/mp4']],
      );
      assert.deepEqual(await h.svc.jobs.list('video', b.accountId), []);
      const clip = await probeClip(r.bytes!);
      assert.equal(clip.audio, undefined, 'a silent model makes silent clips');
      assert.deepEqual([clip.video?.width, clip.video?.height], [456, 256]);
    });
  });
}

describe('video requests that are refused', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ models: [demoModel, silentModel], env: walletEnv({}) });
  });
  after(() => h?.close());

  test('bad bodies are 400s naming the field, and queue nothing', async () => {
    const { key, accountId } = await h.newAccount({ usd: 1 });
    const base = { model: DEMO, prompt: 'p', duration: '5s' };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...base, duration: '7s' }, 400, 'duration'],
      [{ ...base, duration: 'auto' }, 400, 'duration'],
      [{ model: DEMO, prompt: 'p' }, 400, 'duration'],
      [{ ...base, aspect_ratio: '2:1' }, 400, 'aspect_ratio'],
      [{ ...base, resolution: '4k' }, 400, 'resolution'],
      [{ ...base, prompt: '' }, 400, 'prompt'],
      [{ ...base, prompt: 'x'.repeat(2501) }, 400, 'prompt'],
      [{ ...base, colour: 'blue' }, 400, ''],
      [{ ...base, reference_image_urls: ['https://example.com/a.png'] }, 400, 'reference_image_urls'],
      [{ ...base, video_url: 'https://example.com/a.mp4' }, 400, 'video_url'],
      [{ ...base, image_url: 'ftp://example.com/a.png' }, 400, 'image_url'],
      [{ ...base, image_url: 'data:image/png;base64,bm90IGFuIGltYWdl' }, 400, 'image_url'],
      [{ ...base, image_url: 'http://127.0.0.1:1/a.png' }, 400, 'image_url'],
      [{ ...base, model: 'silent-demo-video', duration: '2s', audio: true }, 400, 'audio'],
      [{ ...base, seed: 1.5 }, 400, 'seed'],
      [{ ...base, model: 'scripted-model' }, 400, 'model'],
      [{ ...base, model: 'no-such-model' }, 404, ''],
    ];
    // A truncated PNG (issue 28): its header reads, its pixels do not; once queued it spun an encoder for 300 s.
    const whole = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#3366cc' } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const truncated = whole.subarray(0, Math.floor(whole.length / 3));
    cases.push([{ ...base, image_url: `data:image/png;base64,${truncated.toString('base64')}` }, 400, 'image_url']);
    for (const [body, status, param] of cases) {
      const r = await post(h, '/video/queue', key, body);
      assert.equal(r.status, status, `${JSON.stringify(body).slice(0, 120)} → ${r.text}`);
      const named = r.json.param ?? Object.keys(r.json.details ?? {}).find((k) => k !== '_errors') ?? '';
      if (param) assert.equal(named, param, r.text);
    }
    assert.equal((await post(h, '/video/queue', key, 'not json')).status, 400);
    const r415 = await fetch(`${h.base}/video/queue`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
      body: '{}',
    });
    assert.equal(r415.status, 415);
    assert.equal((await post(h, '/video/quote', key, { model: DEMO, duration: '11s' })).status, 400);
    assert.equal((await post(h, '/video/retrieve', key, { model: DEMO })).status, 400);
    assert.equal((await post(h, '/video/complete', key, { queue_id: 'x' })).status, 400);
    assert.equal(Number((await h.svc.store.get<any>('SELECT COUNT(*) AS n FROM jobs WHERE account_id = $1', [accountId]))!.n), 0);
    assert.deepEqual(await held(h, accountId), { usd: 1_000_000, usdHeld: 0 });
  });

  test('credentials: none is the x402 discovery 402, a bad key 401, the quote is Bearer only; a short balance is 402', async () => {
    const none = await post(h, '/video/queue', undefined, { model: DEMO, prompt: 'p', duration: '5s' });
    assert.equal(none.status, 402);
    assert.equal(none.json.code, 'AUTHENTICATION_REQUIRED');
    assert.equal((await post(h, '/video/queue', 'vk-not-a-key', { model: DEMO, prompt: 'p', duration: '5s' })).status, 401);
    assert.equal((await post(h, '/video/retrieve', undefined, { model: DEMO, queue_id: 'x' })).status, 402);
    assert.equal((await post(h, '/video/quote', undefined, { model: DEMO, duration: '5s' })).status, 401);
    const poor = await h.newAccount({ usd: 0.04 });
    const r = await post(h, '/video/queue', poor.key, { model: DEMO, prompt: 'p', duration: '5s' });
    assert.equal(r.status, 402, r.text);
    assert.equal(r.json.code, 'INSUFFICIENT_BALANCE');
    assert.equal(Number((await h.svc.store.get<any>('SELECT COUNT(*) AS n FROM jobs WHERE account_id = $1', [poor.accountId]))!.n), 0);
    // The quote is free: it works for any key whatever its balance.
    assert.deepEqual((await post(h, '/video/quote', poor.key, { model: DEMO, duration: 10 })).json, { quote: 0.1 });
  });

  test('a wallet signed in with SIGN-IN-WITH-X queues, polls and completes; X-Balance-Remaining follows the charge', async () => {
    const account = evmWallet();
    const w = await ensureWallet(h.svc.store, 'eip155', account.address);
    await grantUsd(h.svc.store, w.accountId, 500_000);
    const signed = async () => ({ 'SIGN-IN-WITH-X': await signInHeader(h, account) });
    const q = await post(h, '/video/queue', undefined, { model: 'silent-demo-video', prompt: 'wallet', duration: '2s' }, await signed());
    assert.equal(q.status, 200, q.text);
    assert.equal(q.headers.get('x-balance-remaining'), '0.460000', 'the hold is taken off what remains');
    const r = await retrieveWhenDone(h.base, '', 'silent-demo-video', q.json.queue_id, { headers: signed });
    assert.equal(r.contentType, 'video/mp4');
    const done = await fetch(`${h.base}/video/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await signed()) },
      body: JSON.stringify({ model: 'silent-demo-video', queue_id: q.json.queue_id }),
    });
    assert.equal(done.status, 200);
    assert.equal(done.headers.get('x-balance-remaining'), '0.460000');
    // A wallet cannot quote (Bearer only, per the reference).
    assert.equal((await post(h, '/video/quote', undefined, { model: DEMO, duration: '5s' }, await signed())).status, 401);
  });

  test('references: an image to animate (data: URL) and a soundtrack (fetched over http) go into the clip', async () => {
    const { key } = await h.newAccount({ usd: 1 });
    const png = solidPng('red', 64, 48);
    const wav = execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=300:duration=2', '-f', 'wav', '-']);
    const server = (await import('node:http')).createServer((_req, res) => res.writeHead(200, { 'content-type': 'audio/wav' }).end(wav));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      // 127.0.0.1 is private: this harness's safe fetcher refuses it unless allowed, which is the point of the next line.
      const refused = await post(h, '/video/queue', key, { model: DEMO, prompt: 'p', duration: 3, audio_url: `http://127.0.0.1:${port}/a.wav` });
      assert.equal(refused.status, 400);
      assert.match(refused.json.error, /private/);
      h.svc.config.fetchAllowHosts.push('127.0.0.1');
      const q = await post(h, '/video/queue', key, {
        model: DEMO,
        prompt: 'red',
        duration: 3,
        resolution: '256p',
        aspect_ratio: '4:3',
        image_url: `data:image/png;base64,${png.toString('base64')}`,
        audio_url: `http://127.0.0.1:${port}/a.wav`,
      });
      assert.equal(q.status, 200, q.text);
      const r = await retrieveWhenDone(h.base, key, DEMO, q.json.queue_id);
      const clip = await probeClip(r.bytes!);
      assert.deepEqual([clip.video?.width, clip.video?.height, Math.round(clip.duration)], [342, 256, 3]);
      assert.equal(clip.audio?.codec_name, 'aac');
      assert.equal(fs.existsSync(h.svc.jobs.media.inputsDir(q.json.queue_id)), false, 'the inputs are gone once the job ended');
      const bad = await post(h, '/video/queue', key, {
        model: DEMO,
        prompt: 'p',
        duration: 3,
        audio_url: `data:audio/wav;base64,${Buffer.from('RIFFxxxxWAVEjunk').toString('base64')}`,
      });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.json.param, 'audio_url');
    } finally {
      h.svc.config.fetchAllowHosts.splice(h.svc.config.fetchAllowHosts.indexOf('127.0.0.1'), 1);
      server.close();
    }
  });

  test('/models?type=video lists the demo as a demo, with its offer and price per second', async () => {
    const r = await get(h, '/models?type=video');
    assert.equal(r.status, 200);
    const m = r.json.data.find((x: { id: string }) => x.id === DEMO);
    assert.equal(m.type, 'video');
    assert.equal(m.model_spec.demo, true);
    assert.match(m.model_spec.description, /demo/i);
    assert.deepEqual(m.model_spec.pricing.per_second, { usd: 0.01, diem: 0.01 });
    assert.deepEqual(m.model_spec.constraints.durations, ['3s', '5s', '8s', '10s']);
    assert.equal(m.model_spec.constraints.default_resolution, '480p');
    assert.deepEqual(
      [m.model_spec.constraints.model_type, m.model_spec.constraints.audio_configurable, m.model_spec.constraints.prompt_character_limit],
      ['text-to-video', true, 2500],
    );
    assert.equal(m.model_spec.constraints.audio, true);
  });
});

describe('video rate limits, retention', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({
      models: [silentModel],
      limits: { video: { queue: { default: { rpm: 2 } }, retrieve: { default: { rpm: 3 } } } },
      env: { LAGOON_MEDIA_RETENTION_SECONDS: '1' },
    });
  });
  after(() => h?.close());

  test('queue and retrieve draw on their own budgets (429 past them)', async () => {
    const { key } = await h.newAccount({ usd: 1 });
    const body = { model: 'silent-demo-video', prompt: 'p', duration: 2 };
    const first = await post(h, '/video/queue', key, body);
    assert.equal(first.headers.get('x-ratelimit-limit-requests'), '2');
    assert.equal((await post(h, '/video/queue', key, body)).status, 200);
    const third = await post(h, '/video/queue', key, body);
    assert.equal(third.status, 429);
    assert.equal(third.json.code, 'RATE_LIMIT_EXCEEDED');
    const ref = { model: 'silent-demo-video', queue_id: first.json.queue_id };
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(h, '/video/retrieve', key, ref)).status);
    assert.equal(statuses.filter((s) => s === 429).length, 1, statuses.join(','));
  });

  test('retention: a finished job older than the period is deleted with its media (404)', async () => {
    const { key } = await h.newAccount({ usd: 1 });
    const q = await post(h, '/video/queue', key, { model: 'silent-demo-video', prompt: 'fleeting', duration: 2 });
    assert.equal(q.status, 200, q.text);
    const id = q.json.queue_id;
    let job: any;
    for (let i = 0; i < 600 && job?.status !== 'succeeded'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = await h.svc.store.get<any>('SELECT status, media_path FROM jobs WHERE id = $1', [id]);
    }
    const file = h.svc.jobs.media.resolve(job.media_path);
    assert.ok(fs.existsSync(file));
    // The service sweeps by itself (every quarter of the period here); a sweep called now does the same.
    for (let i = 0; i < 100 && fs.existsSync(file); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await h.svc.jobs.sweep();
    }
    assert.equal(fs.existsSync(file), false);
    assert.notEqual((await h.svc.store.get<any>('SELECT deleted_at FROM jobs WHERE id = $1', [id])).deleted_at, null);
    // The retrieve budget (3 a minute here) is per key and model; this key has not used it.
    const r = await post(h, '/video/retrieve', key, { model: 'silent-demo-video', queue_id: id });
    assert.equal(r.status, 404, r.text);
  });
});

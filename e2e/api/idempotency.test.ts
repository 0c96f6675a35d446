// Idempotency-Key on the billed POSTs (issue 34), on SQLite and PostgreSQL: a retry replays the first answer and is
// charged once on every kind of reply (JSON, bytes, a stream, a job); a retry after a dropped stream gets the whole
// answer, because a request with a key runs to its end; concurrent duplicates run once; another request under the
// key is a 422; refusals are kept, the server's own failures are not.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase } from '../support/pg.ts';
import { catalogueModel, type Harness, post, postBytes, scriptedEmbeddingModel, startHarness } from '../support/harness.ts';
import { fliteModel } from '../support/audio-catalogue.ts';
import { retrieveWhenDone } from '../support/video.ts';

const chat = (content: string, extra: Record<string, unknown> = {}) => ({ model: 'scripted-model', messages: [{ role: 'user', content }], ...extra });

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`Idempotency-Key on ${backend}`, () => {
    let h: Harness;
    let dropDb = async () => {};
    before(async () => {
      let databaseUrl: string | undefined;
      if (backend === 'postgres') ({ url: databaseUrl, drop: dropDb } = await createTestDatabase());
      h = await startHarness({
        databaseUrl,
        models: (url) => [scriptedEmbeddingModel(url), catalogueModel('lagoon-demo-image'), catalogueModel('lagoon-demo-video'), fliteModel()],
      });
    });
    after(async () => {
      await h?.close();
      await dropDb();
    });

    /** The account's usage rows and what it was charged. */
    async function charged(accountId: string) {
      await h.svc.ledger.drain();
      const rows = await h.svc.store.all<{ usd: number | string }>('SELECT usd FROM usage WHERE account_id = $1', [accountId]);
      return { rows: rows.length, usd: rows.reduce((n, r) => n + Number(r.usd), 0) };
    }

    test('a chat completion is replayed with the same body and charged once; another body is a 422', async () => {
      const { key, accountId } = await h.newAccount({ usd: 1 });
      const headers = { 'idempotency-key': 'chat-1' };
      const first = await post(h, '/chat/completions', key, chat('[[tokens:5]]'), headers);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const balance = (await h.svc.ledger.balances(accountId)).usd;
      const again = await post(h, '/chat/completions', key, chat('[[tokens:5]]'), headers);
      assert.equal(again.status, 200);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.json, first.json, 'the same completion, id included');
      assert.equal((await charged(accountId)).rows, 1);
      assert.equal((await h.svc.ledger.balances(accountId)).usd, balance, 'the replay charged nothing');

      const other = await post(h, '/chat/completions', key, chat('[[tokens:6]]'), headers);
      assert.deepEqual([other.status, other.json.code], [422, 'IDEMPOTENCY_KEY_REUSED']);
      const elsewhere = await post(h, '/embeddings', key, { model: 'embed-model', input: 'x' }, headers);
      assert.deepEqual([elsewhere.status, elsewhere.json.code], [422, 'IDEMPOTENCY_KEY_REUSED'], 'a key names one request, whatever the route');
      const bad = await post(h, '/chat/completions', key, chat('[[tokens:5]]'), { 'idempotency-key': 'no spaces' });
      assert.deepEqual([bad.status, bad.json.param], [400, 'Idempotency-Key']);
      // Keys belong to their account: another caller's same key is a request of its own.
      const stranger = await h.newAccount({ usd: 1 });
      const theirs = await post(h, '/chat/completions', stranger.key, chat('[[tokens:6]]'), headers);
      assert.equal(theirs.status, 200);
      assert.equal(theirs.headers.get('idempotent-replayed'), null);
    });

    test('a stream whose client went away runs to its end; the retry gets all of it, charged once', async () => {
      const { key, accountId } = await h.newAccount({ usd: 1 });
      const aborted = h.engine.abortedStreams;
      const body = JSON.stringify(chat('[[tokens:30]] [[slow:20]]', { stream: true }));
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'idempotency-key': 'stream-1' };
      const client = new AbortController();
      const res = await fetch(`${h.base}/chat/completions`, { method: 'POST', headers, body, signal: client.signal });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      await reader.read(); // the first event arrived
      client.abort(); // the connection drops
      const retry = await fetch(`${h.base}/chat/completions`, { method: 'POST', headers, body });
      const text = await retry.text();
      assert.equal(retry.status, 200);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.match(retry.headers.get('content-type') ?? '', /text\/event-stream/);
      const words = text
        .split('\n\n')
        .filter((e) => e.startsWith('data: {'))
        .map((e) => JSON.parse(e.slice(6)).choices?.[0]?.delta?.content ?? '')
        .join('');
      assert.equal(words.trim(), Array.from({ length: 30 }, (_, i) => `w${i + 1}`).join(' '));
      assert.ok(text.trimEnd().endsWith('data: [DONE]'));
      assert.equal(h.engine.abortedStreams, aborted, 'the engine was not stopped');
      const { rows } = await charged(accountId);
      assert.equal(rows, 1, 'one usage row for the one run');
      const row = await h.svc.store.get<{ completion_tokens: number }>('SELECT completion_tokens FROM usage WHERE account_id = $1', [accountId]);
      assert.equal(Number(row?.completion_tokens), 30, 'billed for the whole answer it will replay');
    });

    test('concurrent duplicates run once and all get the answer', async () => {
      const { key, accountId } = await h.newAccount({ usd: 1 });
      const seen = h.engine.requests.length;
      const all = await Promise.all(
        Array.from({ length: 4 }, () => post(h, '/chat/completions', key, chat('[[tokens:8]] [[slow:30]]'), { 'idempotency-key': 'together' })),
      );
      assert.deepEqual(
        all.map((r) => r.status),
        [200, 200, 200, 200],
      );
      assert.equal(new Set(all.map((r) => r.json.id)).size, 1);
      assert.equal(all.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 3);
      assert.equal(h.engine.requests.length - seen, 1, 'the engine ran once');
      assert.equal((await charged(accountId)).rows, 1);
    });

    test('embeddings, an image in bytes, speech and a video job: each replayed, each charged once', async () => {
      const { key, accountId } = await h.newAccount({ usd: 5 });
      const twice = async (path: string, body: unknown, idem: string) => {
        const a = await postBytes(h, path, key, JSON.stringify(body), { 'content-type': 'application/json', 'idempotency-key': idem });
        const b = await postBytes(h, path, key, JSON.stringify(body), { 'content-type': 'application/json', 'idempotency-key': idem });
        assert.equal(a.status, 200, a.bytes.toString().slice(0, 300));
        assert.equal(b.status, 200);
        assert.equal(b.headers.get('idempotent-replayed'), 'true', path);
        assert.equal(b.headers.get('content-type'), a.headers.get('content-type'), path);
        assert.ok(a.bytes.equals(b.bytes), `${path}: the same bytes`);
        return a;
      };
      await twice('/embeddings', { model: 'embed-model', input: 'hello' }, 'embed-1');
      const image = await twice('/image/generate', { model: 'lagoon-demo-image', prompt: 'a lagoon', width: 256, height: 256, return_binary: true }, 'image-1');
      assert.match(image.headers.get('content-type') ?? '', /^image\//);
      const speech = await twice('/audio/speech', { model: 'tts-flite', input: 'Hello there.', response_format: 'wav' }, 'speech-1');
      assert.equal(speech.bytes.subarray(0, 4).toString(), 'RIFF');
      const video = await twice('/video/queue', { model: 'lagoon-demo-video', prompt: 'waves', duration: 3, resolution: '256p' }, 'video-1');
      const queueId = JSON.parse(video.bytes.toString()).queue_id;
      assert.ok(queueId);
      const jobs = await h.svc.store.all('SELECT id FROM jobs WHERE account_id = $1', [accountId]);
      assert.equal(jobs.length, 1, 'one job queued');
      await retrieveWhenDone(h.base, key, 'lagoon-demo-video', queueId);
      const { rows } = await charged(accountId);
      assert.equal(rows, 4, 'embeddings, image, speech and video: one usage row each');
    });

    test('a refusal is kept and replayed; the server failing is not, so the retry runs again', async () => {
      const { key } = await h.newAccount({ usd: 1 });
      const unknown = await post(h, '/chat/completions', key, { ...chat('x'), model: 'no-such-model' }, { 'idempotency-key': 'refused' });
      assert.equal(unknown.status >= 400 && unknown.status < 500, true, unknown.text);
      const again = await post(h, '/chat/completions', key, { ...chat('x'), model: 'no-such-model' }, { 'idempotency-key': 'refused' });
      assert.equal(again.status, unknown.status);
      assert.equal(again.json.code, unknown.json.code);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');

      const seen = h.engine.requests.length;
      const failed = await post(h, '/chat/completions', key, chat('[[status:500]]'), { 'idempotency-key': 'failing' });
      assert.ok(failed.status >= 500, failed.text);
      const retried = await post(h, '/chat/completions', key, chat('[[status:500]]'), { 'idempotency-key': 'failing' });
      assert.ok(retried.status >= 500);
      assert.equal(retried.headers.get('idempotent-replayed'), null);
      assert.ok(h.engine.requests.length - seen >= 2, 'the retry reached the engine again');
    });
  });
}

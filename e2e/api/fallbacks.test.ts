// `fallbacks`: models tried in order when the one before is unavailable (at capacity, its engine down or not
// starting) or fails before its first byte. Only the model that answered is billed and named in the headers; a
// failure the request caused is not retried elsewhere.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type Harness, post, scriptedModel, sseEvents, startHarness } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';

/** A broken upstream: `/busy` answers 503, `/down` drops the connection, `/slow` never answers. */
let broken: http.Server;
let brokenUrl: string;
before(async () => {
  broken = http.createServer((req, res) => {
    if (req.url?.startsWith('/busy/')) return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded"}}');
    if (req.url?.startsWith('/down/')) return void req.socket.destroy();
    // /slow: the request stays open until the client gives up.
  });
  await new Promise<void>((r) => broken.listen(0, '127.0.0.1', r));
  brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
});
after(() => {
  broken.closeAllConnections();
  broken.close();
});

// On PostgreSQL the holds are rows keyed by the request id: a failed attempt's release and the next attempt's
// reservation reuse that key, in order.
for (const store of ['embedded store', 'PostgreSQL']) {
  describe(`fallbacks (${store})`, () => {
    let h: Harness;
    let key: string;
    let accountId: string;
    let drop: (() => Promise<void>) | undefined;
    before(async () => {
      let databaseUrl: string | undefined;
      if (store === 'PostgreSQL') ({ url: databaseUrl, drop } = await createTestDatabase());
      h = await startHarness({
        databaseUrl,
        models: (url) => [
          scriptedModel('busy-model', `${brokenUrl}/busy/v1`),
          scriptedModel('down-model', `${brokenUrl}/down/v1`),
          scriptedModel('slow-model', `${brokenUrl}/slow/v1`, { engine: { kind: 'openai', baseUrl: `${brokenUrl}/slow/v1`, model: 'x', timeoutMs: 150 } }),
          // An engine that cannot start: its key variable is not set.
          scriptedModel('keyless-model', url, { engine: { kind: 'openai', baseUrl: url, model: 'scripted', apiKeyEnv: 'LAGOON_TEST_UNSET_KEY' } }),
          scriptedModel('pricey-model', url, { pricing: { input_usd: 10, output_usd: 20, input_diem: 10, output_diem: 20 } }),
        ],
      });
      ({ key, accountId } = await h.newAccount({ usd: 50 }));
    });
    after(async () => {
      await h.close();
      await drop?.();
    });

    const chat = (body: Record<string, unknown>) => post(h, '/chat/completions', key, { messages: [{ role: 'user', content: 'hi' }], ...body });
    const rowsOf = async (requestId: string) => (await h.svc.ledger.drain(), h.svc.store.all<any>('SELECT * FROM usage WHERE request_id = $1', [requestId]));

    test('each kind of unavailability moves on to the next model, which answers, bills and is named', async () => {
      for (const primary of ['busy-model', 'down-model', 'slow-model', 'keyless-model']) {
        const before = await h.svc.ledger.balances(accountId);
        const r = await chat({ model: primary, fallbacks: [{ model: 'pricey-model' }] });
        assert.equal(r.status, 200, `${primary}: ${r.text}`);
        assert.equal(r.json.model, 'pricey-model');
        assert.equal(r.headers.get('x-service-model-id'), 'pricey-model');
        const rows = await rowsOf(r.headers.get('cf-ray')!);
        assert.equal(rows.length, 1, primary);
        assert.equal(rows[0].model_id, 'pricey-model');
        // pricey-model: 10 / 20 USD per million tokens.
        assert.equal(Number(rows[0].usd), r.json.usage.prompt_tokens * 10 + r.json.usage.completion_tokens * 20);
        const afterwards = await h.svc.ledger.balances(accountId);
        assert.equal(afterwards.usdHeld, 0, `${primary}: every hold is released or settled`);
        assert.equal(before.usd - afterwards.usd, Number(rows[0].usd), `${primary}: billed once, for the model that answered`);
      }
    });

    test('the chain goes on past several failures; the model that answers first ends it', async () => {
      const r = await chat({ model: 'busy-model', fallbacks: [{ model: 'down-model' }, 'scripted-model', { model: 'pricey-model' }] });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.model, 'scripted-model');
    });

    test('streams fall back before their first byte', async () => {
      const r = await chat({
        model: 'down-model',
        stream: true,
        fallbacks: [{ model: 'scripted-model' }],
        messages: [{ role: 'user', content: '[[tokens:3]]' }],
      });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('x-service-model-id'), 'scripted-model');
      const chunks = sseEvents(r.text).slice(0, -1);
      assert.equal(chunks[0].model, 'scripted-model');
      assert.equal(
        chunks
          .flatMap((c) => c.choices)
          .map((c: any) => c.delta.content ?? '')
          .join(''),
        'w1 w2 w3',
      );
      assert.equal((await rowsOf(r.headers.get('cf-ray')!))[0].model_id, 'scripted-model');
    });

    test('when every model fails the last failure is the answer, and nothing is billed', async () => {
      const r = await chat({ model: 'busy-model', fallbacks: [{ model: 'down-model' }] });
      // down-model's upstream drops every connection: its engine check found it down (lib/engines/health.ts).
      assert.equal(r.status, 503);
      assert.equal(r.json.code, 'ENGINE_DOWN');
      assert.deepEqual(await rowsOf(r.headers.get('cf-ray')!), []);
      assert.equal((await h.svc.ledger.balances(accountId)).usdHeld, 0);
      const busy = await chat({ model: 'busy-model' });
      assert.equal(busy.status, 503);
      assert.equal(busy.json.code, 'MODEL_AT_CAPACITY');
    });

    test('a failure the request caused is not retried on the fallbacks', async () => {
      const before = h.engine.requests.length;
      const context = await chat({ model: 'scripted-model', fallbacks: [{ model: 'pricey-model' }], messages: [{ role: 'user', content: '[[context]]' }] });
      assert.equal(context.status, 400);
      assert.equal(context.json.code, 'CONTEXT_LENGTH_EXCEEDED');
      const gate = await chat({ model: 'plain-model', fallbacks: [{ model: 'scripted-model' }], logprobs: true });
      assert.equal(gate.status, 400);
      assert.equal(h.engine.requests.length, before + 1, 'only the first model was asked');
    });

    test('an answering first model leaves the fallbacks alone; a fallback must name a text model', async () => {
      const r = await chat({ model: 'scripted-model', fallbacks: [{ model: 'pricey-model' }] });
      assert.equal(r.json.model, 'scripted-model');
      const unknown = await chat({ model: 'scripted-model', fallbacks: [{ model: 'no-such-model' }] });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.json.code, 'MODEL_NOT_FOUND');
      assert.match(unknown.json.error, /^fallbacks\.0\.model: /);
      assert.equal((await chat({ model: 'scripted-model', fallbacks: Array.from({ length: 11 }, () => ({ model: 'pricey-model' })) })).status, 400);
    });

    test('the Responses API and the openai client fall back the same way', async () => {
      const r = await post(h, '/responses', key, { model: 'busy-model', input: 'hi', fallbacks: [{ model: 'scripted-model' }] });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.model, 'scripted-model');
      assert.equal((await rowsOf(r.headers.get('cf-ray')!))[0].endpoint, '/responses');
      const client = new OpenAI({ apiKey: key, baseURL: h.base, maxRetries: 0 });
      const c = await client.chat.completions.create({
        model: 'down-model',
        messages: [{ role: 'user', content: 'hi' }],
        // @ts-expect-error: a documented field of this API that the OpenAI types do not know
        fallbacks: [{ model: 'scripted-model' }],
      });
      assert.equal(c.model, 'scripted-model');
    });
  });
}

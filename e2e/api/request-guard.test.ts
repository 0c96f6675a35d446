// The server-level guard (lib/http/guard.ts) and the delivery policy, on a real HTTP server with the server's own
// response class and a real ledger: handlers that throw after their head, inside a stream, or while a piped stream
// fails each end their response, are logged, and leave the server answering; a header value Node would refuse goes
// out encoded; and money follows delivery: a charge whose answer was replaced by an error, or whose whole reply was
// cut, goes back once; a stream cut midway keeps the charge for what it delivered.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, test } from 'node:test';
import { authenticate } from '../../lib/auth/keys.ts';
import { perCallPrices } from '../../lib/billing/pricing.ts';
import type { RequestCtx } from '../../lib/http/context.ts';
import { guard } from '../../lib/http/guard.ts';
import { startSse, writeEvent } from '../../lib/http/respond.ts';
import { SafeResponse, safeHeaderValue } from '../../lib/http/safe-response.ts';
import { ok } from '../../lib/http/send.ts';
import { newRequestId } from '../../lib/http/request-id.ts';
import { metered } from '../../lib/billing/metered.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';

const PRICE = 250_000; // micro-USD per call
const tick = () => new Promise((r) => setTimeout(r, 5));

let h: Harness;
let server: http.Server;
let origin = '';
const seen: RequestCtx[] = [];

/** Charges one call at PRICE under the request's id, as a billed route does before it writes its answer. */
async function charge(ctx: RequestCtx): Promise<void> {
  const principal = await authenticate(ctx.svc.store, ctx.req.headers.authorization?.slice(7));
  ctx.principal = principal;
  const call = { modelId: 'guard-test', endpoint: '/guard', prices: perCallPrices(PRICE), unit: 'call' as const, estimate: { calls: 1 } };
  await metered(ctx.svc, { principal, requestId: ctx.requestId, responseHeaders: ctx.extraHeaders }, call, async (meter) => {
    meter.settle({ calls: 1 });
  });
}

const handlers: Record<string, (ctx: RequestCtx) => Promise<void>> = {
  async '/throw-after-head'(ctx) {
    ctx.res.writeHead(200, { 'content-type': 'text/plain' });
    ctx.res.write('partial');
    throw new Error('boom after the head');
  },
  async '/throw-in-stream'(ctx) {
    startSse(ctx.res, {});
    async function* events() {
      yield 'data: one\n\n';
      await tick();
      throw new Error('boom inside the stream');
    }
    for await (const e of events()) await writeEvent(ctx.res, e);
  },
  async '/piped-stream-fails'(ctx) {
    ctx.res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const source = new Readable({
      read() {
        this.push(Buffer.alloc(1024));
        setImmediate(() => this.destroy(new Error('the source failed')));
      },
    });
    await pipeline(source, ctx.res);
  },
  async '/error-answer-fails'(ctx) {
    // The error answer itself cannot be written (a closed socket): the guard still ends the request.
    ctx.res.destroy();
    throw new Error('failed, and the socket is gone');
  },
  async '/refused-header'(ctx) {
    ctx.extraHeaders['x-model-name'] = 'ESRGAN slim (neural upscaler, 2×–4×)\r\nset-cookie: x=1';
    ok(ctx, { fine: true });
  },
  async '/charged-ok'(ctx) {
    await charge(ctx);
    ok(ctx, { delivered: true });
  },
  async '/charged-then-throws'(ctx) {
    await charge(ctx);
    throw new Error('failed after the charge');
  },
  async '/charged-then-cut'(ctx) {
    await charge(ctx);
    ctx.res.writeHead(200, { 'content-type': 'image/png', 'content-length': '100000' });
    ctx.res.write(Buffer.alloc(1000));
    await tick();
    throw new Error('the image could not be read back');
  },
  async '/charged-client-leaves'(ctx) {
    await charge(ctx);
    // The work is done; the client hangs up before the answer is written.
    await new Promise((r) => ctx.res.once('close', r));
    ok(ctx, { delivered: false });
  },
  async '/charged-stream-cut'(ctx) {
    await charge(ctx);
    startSse(ctx.res, {});
    await writeEvent(ctx.res, 'data: tokens\n\n');
    await tick();
    ctx.res.destroy();
  },
};

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`on ${backend}`, () => {
    let dropDb = async () => {};
    before(async () => {
      const db = backend === 'postgres' ? await createTestDatabase() : undefined;
      if (db) dropDb = db.drop;
      h = await startHarness({ databaseUrl: db?.url });
      server = http.createServer({ ServerResponse: SafeResponse }, (req, res) => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const requestId = newRequestId();
        const controller = new AbortController();
        const headerCtx = { wire: h.svc.config.wire, requestId, revision: 'test', hostName: 'test', timestamp: false };
        const ctx: RequestCtx = {
          req,
          res,
          svc: h.svc,
          url,
          params: {},
          requestId,
          headerCtx,
          extraHeaders: {},
          signal: controller.signal,
          detach: () => undefined,
          ip: '127.0.0.1',
        };
        seen.push(ctx);
        void guard(
          ctx,
          () => handlers[url.pathname](ctx),
          () => undefined,
        );
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await h.close();
      await dropDb();
    });

    /** A raw request: its status (0 when none came) and whether the connection was cut before a complete response. */
    function call(path: string, key?: string, hangUp = false): Promise<{ status: number; cut: boolean; headers: http.IncomingHttpHeaders; body: string }> {
      return new Promise((resolve) => {
        const req = http.request(`${origin}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {}, agent: false }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, cut: !res.complete, headers: res.headers, body }));
          res.on('error', () => resolve({ status: res.statusCode ?? 0, cut: true, headers: res.headers, body }));
          res.on('aborted', () => resolve({ status: res.statusCode ?? 0, cut: true, headers: res.headers, body }));
        });
        req.on('error', () => resolve({ status: 0, cut: true, headers: {}, body: '' }));
        req.end();
        // A client that gives up once its request is sent (the server has begun the work by then).
        if (hangUp) req.on('finish', () => setTimeout(() => req.destroy(), 100));
      });
    }

    const alive = async () => (await call('/charged-ok', (await h.newAccount()).key)).status === 200;

    describe('the guard', () => {
      for (const path of ['/throw-after-head', '/throw-in-stream', '/piped-stream-fails', '/error-answer-fails']) {
        test(`${path}: the response is ended, not left hanging, and the server keeps answering`, async () => {
          const r = await Promise.race([call(path), new Promise<'hung'>((r) => setTimeout(() => r('hung'), 5000))]);
          assert.notEqual(r, 'hung');
          if (r !== 'hung' && r.status) assert.ok(r.cut, `${path}: a failed response must not look complete`);
          assert.ok(await alive());
        });
      }

      test('a header value Node refuses goes out percent-encoded, on one line', async () => {
        const r = await call('/refused-header');
        assert.equal(r.status, 200);
        assert.equal(r.headers['set-cookie'], undefined);
        assert.equal(decodeURIComponent(String(r.headers['x-model-name'])), 'ESRGAN slim (neural upscaler, 2×–4×)  set-cookie: x=1');
      });

      test('safeHeaderValue: ASCII unchanged; the rest percent-encoded UTF-8; lone surrogates as U+FFFD; never throws', () => {
        assert.equal(safeHeaderValue('Llama 3.3 70B (100%)'), 'Llama 3.3 70B (100%)');
        assert.equal(safeHeaderValue('Fast — model'), 'Fast %E2%80%94 model');
        assert.equal(safeHeaderValue('100% — café'), '100%25 %E2%80%94 caf%C3%A9');
        assert.equal(safeHeaderValue('a\nb\tc'), 'a b\tc');
        assert.equal(safeHeaderValue('x\ud800y'), 'x%EF%BF%BDy');
        // Long encoded values are cut at a character, with an ellipsis, within 2 KB; long ASCII passes as it is.
        const long = safeHeaderValue(`${'é'.repeat(10_000)}`);
        assert.ok(long.length <= 2048 + 9 && long.endsWith('%E2%80%A6') && long.startsWith('%C3%A9%C3%A9'), `${long.length}`);
        assert.equal(decodeURIComponent(long), `${'é'.repeat(341)}…`);
        assert.equal(safeHeaderValue('x'.repeat(10_000)).length, 10_000);
      });
    });

    describe('delivery and money', () => {
      const money = async (accountId: string) => {
        await h.svc.ledger.drain();
        const b = await h.svc.ledger.balances(accountId);
        const rows = await h.svc.store.all<{ usd: number; refunded_usd: number | null }>('SELECT usd, refunded_usd FROM usage WHERE account_id = $1', [
          accountId,
        ]);
        return { usd: b.usd, held: b.usdHeld, rows: rows.map((r) => [Number(r.usd), r.refunded_usd === null ? null : Number(r.refunded_usd)]) };
      };
      /** Waits (bounded) for the refund the server makes once the response closed. */
      const settled = async (accountId: string, want: (m: Awaited<ReturnType<typeof money>>) => boolean) => {
        let m = await money(accountId);
        for (let i = 0; i < 100 && !want(m); i++) {
          await new Promise((r) => setTimeout(r, 20));
          m = await money(accountId);
        }
        return m;
      };

      test('a delivered answer is charged once', async () => {
        const { key, accountId } = await h.newAccount({ usd: 10 });
        assert.equal((await call('/charged-ok', key)).status, 200);
        assert.deepEqual(await money(accountId), { usd: 10_000_000 - PRICE, held: 0, rows: [[PRICE, null]] });
      });

      test('an error answer after the charge: refunded once, the row keeps what was refunded', async () => {
        const { key, accountId } = await h.newAccount({ usd: 10 });
        const r = await call('/charged-then-throws', key);
        assert.equal(r.status, 500);
        assert.deepEqual(await settled(accountId, (m) => m.usd === 10_000_000), { usd: 10_000_000, held: 0, rows: [[0, PRICE]] });
      });

      test('a client that hangs up after the work was done is charged (an idempotent retry replays the answer)', async () => {
        const { key, accountId } = await h.newAccount({ usd: 10 });
        const r = await call('/charged-client-leaves', key, true);
        assert.ok(r.cut);
        await new Promise((r) => setTimeout(r, 100));
        assert.deepEqual(await money(accountId), { usd: 10_000_000 - PRICE, held: 0, rows: [[PRICE, null]] });
      });

      test('a whole reply its handler cut before the last byte: refunded', async () => {
        const { key, accountId } = await h.newAccount({ usd: 10 });
        const r = await call('/charged-then-cut', key);
        assert.ok(r.cut);
        assert.deepEqual(await settled(accountId, (m) => m.usd === 10_000_000), { usd: 10_000_000, held: 0, rows: [[0, PRICE]] });
      });

      test('a stream cut midway keeps its charge (what it delivered)', async () => {
        const { key, accountId } = await h.newAccount({ usd: 10 });
        const r = await call('/charged-stream-cut', key);
        assert.ok(r.cut);
        await new Promise((r) => setTimeout(r, 100));
        assert.deepEqual(await money(accountId), { usd: 10_000_000 - PRICE, held: 0, rows: [[PRICE, null]] });
      });

      test('a refund is made once: asking again moves nothing', async () => {
        const { key, accountId } = await h.newAccount({ usd: 10 });
        await call('/charged-then-throws', key);
        await settled(accountId, (m) => m.usd === 10_000_000);
        const ctx = seen.at(-1) as RequestCtx;
        const { refundIn } = await import('../../lib/billing/refund.ts');
        assert.deepEqual(await h.svc.store.tx((q) => refundIn(h.svc.store, q, ctx.requestId)), { usd: 0, diem: 0 });
        assert.deepEqual(await money(accountId), { usd: 10_000_000, held: 0, rows: [[0, PRICE]] });
      });
    });
  });
}

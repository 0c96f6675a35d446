// pipeSse: a stream's head leaves with its first event when one is at hand, and on its own when none is, so a client
// hears 200 before a slow first event; every event then arrives in order and the stream ends.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { request } from 'undici';
import { wireNames } from '../api/wire.ts';
import type { RequestCtx } from './context.ts';
import { pipeSse } from './routes/chat.ts';

/** A server whose one route pipes `steps` as SSE through pipeSse, with the context fields it reads. */
async function serve(steps: () => AsyncIterable<string>) {
  const server = http.createServer((req, res) => {
    const ctx = {
      req,
      res,
      svc: { config: { sseKeepAliveMs: 60_000 } },
      headerCtx: { wire: wireNames('service'), requestId: 'req-1', revision: 'test', hostName: 'test', timestamp: false },
      extraHeaders: { 'x-extra': 'yes' },
    } as unknown as RequestCtx;
    void pipeSse(ctx, steps(), (s) => `data: ${s}\n\n`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise((r) => server.close(r)) };
}

test('with no event at hand the head is sent on its own: the client has its 200 before the first event exists', async () => {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const s = await serve(async function* () {
    await gate; // opened only once the client holds the response head
    yield 'one';
    yield 'two';
  });
  try {
    const res = await request(s.url);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/event-stream; charset=utf-8');
    assert.equal(res.headers['x-extra'], 'yes');
    open();
    assert.equal(await res.body.text(), 'data: one\n\ndata: two\n\n');
  } finally {
    await s.close();
  }
});

test('with the first event at hand, head and events arrive whole and in order', async () => {
  const s = await serve(async function* () {
    for (let i = 0; i < 50; i++) yield `e${i}`;
  });
  try {
    const res = await request(s.url);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'no-cache, no-transform');
    assert.equal(await res.body.text(), Array.from({ length: 50 }, (_, i) => `data: e${i}\n\n`).join(''));
  } finally {
    await s.close();
  }
});

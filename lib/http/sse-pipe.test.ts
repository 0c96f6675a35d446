// pipeSse: a stream's head leaves with its first event when one is at hand, and on its own when none is, so a client
// hears 200 before a slow first event; every event then arrives in order and the stream ends. The first output leaves
// at once; the other events written in one turn leave together.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { request } from 'undici';
import { wireNames } from '../api/wire.ts';
import type { RequestCtx } from './context.ts';
import { pipeSse } from './sse-pipe.ts';

/** A server whose one route pipes `steps` as SSE through pipeSse, with the context fields it reads. */
async function serve(steps: (res: http.ServerResponse) => AsyncIterable<string>) {
  const server = http.createServer((req, res) => {
    const ctx = {
      req,
      res,
      svc: { config: { sseKeepAliveMs: 60_000 } },
      headerCtx: { wire: wireNames('service'), requestId: 'req-1', revision: 'test', hostName: 'test', timestamp: false },
      extraHeaders: { 'x-extra': 'yes' },
    } as unknown as RequestCtx;
    void pipeSse(
      ctx,
      steps(res),
      (s) => `data: ${s}\n\n`,
      (s) => s !== 'role',
    );
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

test('the first output leaves before the next step is made; the steps around it are written together', async () => {
  // What the socket holds back when the stream is asked for its next step: node:http corks a turn's writes.
  const seen: { after: string; corked: number; buffered: number }[] = [];
  const s = await serve(async function* (res) {
    const look = (after: string) => seen.push({ after, corked: res.socket!.writableCorked, buffered: res.socket!.writableLength });
    yield 'role'; // no output yet: it waits for what follows in this turn
    look('role');
    yield 'token';
    look('token');
    yield 'more';
    look('more');
    yield 'done';
  });
  try {
    const res = await request(s.url);
    assert.equal(await res.body.text(), 'data: role\n\ndata: token\n\ndata: more\n\ndata: done\n\n');
    const byStep = Object.fromEntries(seen.map((x) => [x.after, x]));
    assert.equal(byStep.role.corked, 1, 'the head and the role-only step wait for the first token');
    assert.deepEqual({ corked: byStep.token.corked, buffered: byStep.token.buffered }, { corked: 0, buffered: 0 }, 'the first token has left');
    assert.equal(byStep.more.corked, 1, 'later steps of one turn are written together again');
  } finally {
    await s.close();
  }
});

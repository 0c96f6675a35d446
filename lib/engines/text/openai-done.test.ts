// The OpenAI-compatible engine at a stream's [DONE], against a real upstream on loopback: the body's end, arriving
// just after, is read rather than cut, so the connection serves the next stream; an upstream that keeps the body open
// after [DONE] still ends the stream at once, and its connection is cut after a moment.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createOpenAIEngine } from './openai.ts';
import type { EngineChunk, EngineRequest } from './types.ts';

let server: http.Server;
let base: string;
let connections = 0;
let closed = 0;
/** Answers whose body the server has ended. */
let ended = 0;
/** How the next answers end after [DONE]: a moment later, or never (the upstream keeps the body open). */
let endAfterDone: 'later' | 'never' = 'later';

before(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'hi' } }] })}\n\n`);
      res.write('data: [DONE]\n\n');
      if (endAfterDone === 'later') setTimeout(() => res.end(() => ended++), 30);
    });
  });
  server.on('connection', (socket) => {
    connections++;
    socket.on('close', () => closed++);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
after(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const request = (): EngineRequest => ({
  requestId: `t-${Math.random()}`,
  model: 'm',
  messages: [{ role: 'user', content: 'hello' }],
  params: { max_tokens: 8, n: 1 },
  signal: new AbortController().signal,
});

async function streamOnce(e: ReturnType<typeof createOpenAIEngine>): Promise<{ chunks: EngineChunk[]; ms: number }> {
  const t0 = performance.now();
  const chunks: EngineChunk[] = [];
  for await (const c of e.stream(request())) chunks.push(c);
  return { chunks, ms: performance.now() - t0 };
}

test('a body that ends just after [DONE] is read to its end: one connection serves every stream', async () => {
  const e = createOpenAIEngine({ baseUrls: [base], model: 'm', name: 'done-later', timeoutMs: 5_000 });
  try {
    endAfterDone = 'later';
    const before = connections;
    ended = 0;
    for (let i = 0; i < 3; i++) {
      const { chunks } = await streamOnce(e);
      assert.equal(chunks[0]?.choices[0]?.delta?.content, 'hi');
      // The next stream starts once this body has ended, as a client's next turn would: the server has sent its end,
      // and the client has had a moment to read it (a fixed 80 ms from [DONE] was too short on a loaded machine).
      const until = performance.now() + 5_000;
      while (ended < i + 1 && performance.now() < until) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(connections - before, 1, 'the connection went back to the pool each time');
  } finally {
    await e.close?.();
  }
});

test('a body kept open after [DONE] ends the stream at once and is cut after the grace', async () => {
  const e = createOpenAIEngine({ baseUrls: [base], model: 'm', name: 'done-never', timeoutMs: 5_000 });
  try {
    endAfterDone = 'never';
    const closedBefore = closed;
    const connectedBefore = connections;
    const { chunks, ms } = await streamOnce(e);
    assert.equal(chunks.length, 1);
    assert.ok(ms < 900, `the stream ended at [DONE], not at the body's end (${ms.toFixed(0)} ms)`);
    assert.equal(connections - connectedBefore, 1);
    const t0 = performance.now();
    while (closed === closedBefore && performance.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 50));
    assert.equal(closed - closedBefore, 1, 'the open body was cut, closing its connection');
  } finally {
    await e.close?.();
  }
});

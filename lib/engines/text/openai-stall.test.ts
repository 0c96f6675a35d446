// A loop that stalls past the header deadline (a long GC, a starved machine) while the upstream answers in time: the
// answer waiting in the socket counts, not the deadline. Node runs expired timers before it reads the sockets, so
// without the engine's one turn of grace every call in flight would become a timeout. The upstream runs in its own
// process, so it answers while this one is stalled.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { createOpenAIEngine } from './openai.ts';
import type { Engine, EngineChunk, EngineRequest } from './types.ts';

/** Says `got` on its stdout when a request's body has arrived, and answers ANSWER_MS later (JSON or a short stream). */
const ANSWER_MS = 100;
const UPSTREAM = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    process.stdout.write('got\\n');
    setTimeout(() => {
      const choice = { index: 0, message: { role: 'assistant', content: 'in time' }, finish_reason: 'stop' };
      if (!JSON.parse(body).stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ choices: [choice], usage: { prompt_tokens: 3, completion_tokens: 2 } }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: ' + JSON.stringify({ choices: [{ index: 0, delta: { content: 'in time' } }] }) + '\\n\\ndata: [DONE]\\n\\n');
    }, ${ANSWER_MS});
  });
});
server.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + server.address().port + '/v1'));
`;

let upstream: ChildProcess;
let base: string;
/** Stalls this thread for that many ms when the upstream next says it has a request; then disarms. */
let stallOnNext = 0;
before(async () => {
  upstream = spawn(process.execPath, ['-e', UPSTREAM], { stdio: ['ignore', 'pipe', 'inherit'] });
  base = await new Promise<string>((resolve) => upstream.stdout!.once('data', (d) => resolve(String(d).trim())));
  // Stalled from the pipe's callback, as from a request's handler: the next turn starts with the timers (a stall
  // inside a timer callback would leave the others of that turn unexpired). The upstream answers meanwhile.
  upstream.stdout!.on('data', () => {
    const ms = stallOnNext;
    stallOnNext = 0;
    const end = performance.now() + ms;
    while (performance.now() < end);
  });
});
after(() => {
  upstream.kill();
});

/** A whole (not streamed) completion: the OpenAI engine always has one. */
function complete(engine: Engine) {
  assert.ok(engine.complete);
  return engine.complete(request());
}

const request = (): EngineRequest => ({
  requestId: 'stall',
  model: 'm',
  messages: [{ role: 'user', content: 'hello' }],
  params: { max_tokens: 16, n: 1 },
  signal: new AbortController().signal,
});

for (const stream of [false, true])
  test(`a ${stream ? 'streamed' : 'whole'} answer that arrived while the loop stalled past the header deadline counts`, async () => {
    const engine = createOpenAIEngine({ baseUrls: [base], model: 'm', timeoutMs: 500, totalTimeoutMs: 10_000 });
    try {
      // A connection first, as a busy server has one.
      await complete(engine);
      stallOnNext = 900;
      if (!stream) {
        const done = await complete(engine);
        assert.equal(done.choices[0].message.content, 'in time');
      } else {
        const chunks: EngineChunk[] = [];
        for await (const c of engine.stream(request())) chunks.push(c);
        assert.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'in time');
      }
    } finally {
      await engine.close?.();
    }
  });

test('an upstream that has not answered by the deadline is still a timeout after a stall', async () => {
  const engine = createOpenAIEngine({ baseUrls: [base], model: 'm', timeoutMs: 50, totalTimeoutMs: 10_000 });
  try {
    await complete(engine).catch(() => undefined); // the connection, as above
    // Past the deadline when the stall ends, and the answer still 40 ms away.
    stallOnNext = 60;
    await assert.rejects(complete(engine), (e: Error & { kind?: string }) => e.kind === 'timeout');
  } finally {
    await engine.close?.();
  }
});

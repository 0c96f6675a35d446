// What inference backends stream (an upstream's SSE, our own pipeline's typed events) as generation events, and
// mapping their errors, without a server.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../api/errors.ts';
import { wireNames } from '../../api/wire.ts';
import type { ChatEvent } from '../events.ts';
import { sseData } from '../../engines/text/sse.ts';
import { appErrorOf, type InferenceEvent, toCitations } from './inference.ts';
import { appEvents } from './local-client.ts';
import { loadConfig } from '../../config.ts';
import { remoteError, upstreamEvents } from './remote-client.ts';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
async function* chunks(...parts: string[]) {
  yield* parts;
}

describe('upstream stream parsing', () => {
  test('SSE events split anywhere, CRLF, comments and multi-line data', async () => {
    const text = ': keep-alive\r\n\r\ndata: {"a":1}\r\n\r\ndata: line1\ndata: line2\n\nevent: x\ndata: [DONE]\n\n';
    for (const size of [1, 3, 7, text.length]) {
      const parts = [];
      for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
      assert.deepEqual(await collect(sseData(chunks(...parts))), ['{"a":1}', 'line1\nline2', '[DONE]']);
    }
  });

  test('chunks become content, reasoning, citations, tool-call, model and usage events; [DONE] ends', async () => {
    const wire = wireNames('venice');
    const sse = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
    const events = await collect(
      upstreamEvents(
        chunks(
          sse({
            model: 'm1',
            choices: [],
            venice_parameters: { web_search_citations: [{ title: 'A', url: 'https://a.example/', content: 'x', date: '2025-01-01' }] },
          }),
          sse({ model: 'm1', choices: [{ index: 0, delta: { role: 'assistant', reasoning_content: 'hmm' } }] }),
          sse({
            model: 'm1',
            choices: [
              { index: 0, delta: { content: 'Hi' } },
              { index: 1, delta: { content: 'ignored' } },
            ],
          }),
          sse({ model: 'm1', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: 'f', arguments: '{}' } }] } }] }),
          'data: not json\n\n',
          sse({ model: 'm1', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }, cost: { usd: 0.001, diem: 0 } }),
          'data: [DONE]\n\n',
          sse({ choices: [{ index: 0, delta: { content: 'after done' } }] }),
        ),
        wire,
      ),
    );
    const kinds = events.filter((e) => e.type !== 'model');
    assert.deepEqual(kinds, [
      { type: 'citations', citations: [{ url: 'https://a.example/', title: 'A', date: '2025-01-01' }] },
      { type: 'reasoning', text: 'hmm' },
      { type: 'content', text: 'Hi' },
      // Tool calls pass through as fragments: the generation's tool loop gathers them (tool-calls.ts).
      { type: 'tool_call', index: 0, name: 'f', arguments: '{}' },
      { type: 'usage', usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5, costUsd: 0.001, costDiem: 0 } },
    ] satisfies InferenceEvent[]);
    assert.ok(events.some((e) => e.type === 'model' && e.id === 'm1'));
  });

  test('an in-band error event keeps its message', async () => {
    const events = await collect(upstreamEvents(chunks('data: {"error":{"message":"upstream exploded","type":"server_error"}}\n\n'), wireNames('service')));
    assert.deepEqual(events, [{ type: 'error', error: { code: 'INFERENCE_FAILED', status: 500, message: 'upstream exploded' } }]);
  });

  test('a body split mid-character (UTF-8 bytes) decodes whole', async () => {
    const bytes = new TextEncoder().encode('data: {"model":"m","choices":[{"index":0,"delta":{"content":"héllo ✓"}}]}\n\ndata: [DONE]\n\n');
    async function* split() {
      for (let i = 0; i < bytes.length; i += 5) yield bytes.slice(i, i + 5);
    }
    const events = await collect(upstreamEvents(split(), wireNames('service')));
    assert.deepEqual(
      events.filter((e) => e.type === 'content'),
      [{ type: 'content', text: 'héllo ✓' }],
    );
  });

  test('citation URLs that are not http(s) are blanked, keeping the numbering', () => {
    assert.deepEqual(toCitations([{ url: 'javascript:alert(1)', title: 'x' }, { url: 'https://ok.example/' }, 'junk']), [
      { url: '', title: 'x' },
      { url: 'https://ok.example/' },
      { url: '' },
    ]);
  });
});

describe('local stream events', () => {
  const results = [{ title: 'A', url: 'https://a.example/', content: 'x', date: '2025-01-01' }];
  async function* steps(...all: ChatEvent[][]): AsyncGenerator<ChatEvent[], void, undefined> {
    yield* all;
  }

  test('typed events become generation events directly: model first, choice 0 only, tool-call fragments, usage in units', async () => {
    const events = await collect(
      appEvents(
        { model: 'm1' },
        steps(
          [{ type: 'citations', results }],
          [{ type: 'delta', index: 0, role: 'assistant', reasoning: 'hmm' }],
          [
            { type: 'delta', index: 0, content: 'Hi' },
            { type: 'delta', index: 1, content: 'ignored' },
          ],
          [
            { type: 'tool_calls', index: 0, calls: [{ index: 0, function: { name: 'f', arguments: '{}' } }] },
            { type: 'finish', index: 0, reason: 'stop' },
          ],
          [{ type: 'usage', usage: { prompt_tokens: 3, completion_tokens: 2 }, cost: { usd: 1000, diem: 0 }, params: { web_search_citations: results } }],
        ),
      ),
    );
    assert.deepEqual(events, [
      { type: 'model', id: 'm1' },
      { type: 'citations', citations: [{ url: 'https://a.example/', title: 'A', date: '2025-01-01' }] },
      { type: 'reasoning', text: 'hmm' },
      { type: 'content', text: 'Hi' },
      { type: 'tool_call', index: 0, name: 'f', arguments: '{}' },
      { type: 'usage', usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5, costUsd: 0.001, costDiem: 0 } },
    ] satisfies InferenceEvent[]);
  });

  test('results only in the usage echo still become citations; a mid-stream error keeps its message', async () => {
    const events = await collect(
      appEvents(
        { model: 'm1' },
        steps(
          [{ type: 'delta', index: 0, content: 'part' }],
          [{ type: 'usage', usage: { prompt_tokens: 1, completion_tokens: 1 }, cost: { usd: 0, diem: 0 }, params: { web_search_citations: results } }],
        ),
      ),
    );
    assert.deepEqual(
      events.map((e) => e.type),
      ['model', 'content', 'citations', 'usage'],
    );
    const failed = await collect(appEvents({ model: 'm1' }, steps([{ type: 'delta', index: 0, content: 'a' }], [{ type: 'error', message: 'stopped early' }])));
    assert.deepEqual(failed.at(-1), { type: 'error', error: { code: 'INFERENCE_FAILED', status: 500, message: 'stopped early' } });
  });

  test('leaving the app stream early closes the pipeline stream (its finally bills)', async () => {
    let closed = false;
    async function* pipeline(): AsyncGenerator<ChatEvent[], void, undefined> {
      try {
        for (;;) yield [{ type: 'delta', index: 0, content: 'x' }];
      } finally {
        closed = true;
      }
    }
    for await (const ev of appEvents({ model: 'm1' }, pipeline())) if (ev.type === 'content') break;
    assert.equal(closed, true);
  });
});

describe('errors', () => {
  test('ApiErrors keep code, status and retry-after', () => {
    assert.deepEqual(appErrorOf(new ApiError('RATE_LIMIT_EXCEEDED', 'slow down', undefined, { 'retry-after': '12' })), {
      code: 'RATE_LIMIT_EXCEEDED',
      status: 429,
      message: 'slow down',
      retryAfter: 12,
    });
    assert.deepEqual(appErrorOf(new ApiError('INSUFFICIENT_BALANCE')), {
      code: 'INSUFFICIENT_BALANCE',
      status: 402,
      message: 'Insufficient USD or Diem balance to complete request.',
    });
  });

  test('remote error bodies in either shape; a refused server key says nothing about the key', () => {
    assert.deepEqual(remoteError(402, '{"error":"No credit","code":"INSUFFICIENT_BALANCE"}', null), {
      code: 'INSUFFICIENT_BALANCE',
      status: 402,
      message: 'No credit',
    });
    assert.deepEqual(remoteError(429, '{"error":{"message":"Too many","code":"rate_limit_exceeded"}}', '7'), {
      code: 'RATE_LIMIT_EXCEEDED',
      status: 429,
      message: 'Too many',
      retryAfter: 7,
    });
    assert.deepEqual(remoteError(504, '<html>gateway</html>', null), {
      code: 'REQUEST_TIMEOUT',
      status: 504,
      message: 'The inference service answered HTTP 504',
    });
    const refused = remoteError(401, '{"error":"Authentication failed for key lgn_inf_secret"}', null);
    assert.equal(refused.status, 503);
    assert.ok(!JSON.stringify(refused).includes('lgn_inf_secret'));
  });

  test('remote configuration from the environment', () => {
    const remoteConfigFrom = (env: Record<string, string>, ownWireWord: string) => loadConfig({ LAGOON_WIRE_NAME: ownWireWord, ...env }).app.remote;
    assert.equal(remoteConfigFrom({}, 'service'), undefined);
    const cfg = remoteConfigFrom({ INFERENCE_BASE_URL: 'https://api.example/v1/', INFERENCE_API_KEY: 'k' }, 'service');
    assert.equal(cfg?.baseUrl, 'https://api.example/v1');
    assert.equal(cfg?.wire.params, 'service_parameters');
    assert.equal(
      remoteConfigFrom({ INFERENCE_BASE_URL: 'https://api.venice.ai/api/v1', INFERENCE_API_KEY: 'k', INFERENCE_WIRE_NAME: 'venice' }, 'service')?.wire.params,
      'venice_parameters',
    );
    assert.throws(() => remoteConfigFrom({ INFERENCE_BASE_URL: 'https://api.example/v1' }, 'service'), /INFERENCE_API_KEY/);
    assert.throws(() => remoteConfigFrom({ INFERENCE_BASE_URL: 'ftp://x', INFERENCE_API_KEY: 'k' }, 'service'), /http/);
  });
});

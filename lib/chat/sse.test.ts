// The chat stream serializer: typed events → the exact SSE bytes of the OpenAI streaming format.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StreamHead } from './events.ts';
import { chatSseEvent, SSE_DONE } from './sse.ts';

const head: StreamHead = { id: 'chatcmpl-abc', created: 1700000000, model: 'm1', paramsKey: 'service_parameters' };
const pre = '{"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1700000000,"model":"m1",';

test('deltas: role, content, reasoning, tool calls, finish and logprobs in the wire order', () => {
  assert.equal(
    chatSseEvent(head, [{ type: 'delta', index: 0, role: 'assistant' }]),
    `data: ${pre}"choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}\n\n`,
  );
  assert.equal(
    chatSseEvent(head, [{ type: 'delta', index: 0, content: 'Hi', reasoning: 'hmm' }]),
    `data: ${pre}"choices":[{"index":0,"delta":{"content":"Hi","reasoning_content":"hmm"},"finish_reason":null}]}\n\n`,
  );
  const logprobs = { content: [{ token: 'w1', logprob: -0.1, bytes: [119, 49] }] };
  assert.equal(
    chatSseEvent(head, [{ type: 'delta', index: 0, content: 'w1', logprobs }]),
    `data: ${pre}"choices":[{"index":0,"delta":{"content":"w1"},"finish_reason":null,"logprobs":{"content":[{"token":"w1","logprob":-0.1,"bytes":[119,49]}]}}]}\n\n`,
  );
  assert.equal(
    chatSseEvent(head, [{ type: 'finish', index: 0, reason: 'stop' }]),
    `data: ${pre}"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`,
  );
  const call = { index: 1, id: 'call_1', type: 'function' as const, function: { name: 'lookup', arguments: '{}' } };
  assert.equal(
    chatSseEvent(head, [
      { type: 'delta', index: 0, role: 'assistant' },
      { type: 'tool_calls', index: 0, calls: [call] },
      { type: 'finish', index: 0, reason: 'tool_calls' },
    ]),
    `data: ${pre}"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":1,"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}\n\n`,
  );
});

test('one step with several choices is one chunk, choices in order', () => {
  assert.equal(
    chatSseEvent(head, [
      { type: 'delta', index: 0, content: 'a' },
      { type: 'delta', index: 1, content: 'b' },
      { type: 'finish', index: 1, reason: 'length' },
    ]),
    `data: ${pre}"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null},{"index":1,"delta":{"content":"b"},"finish_reason":"length"}]}\n\n`,
  );
});

test('citations first, under the wire name of the service parameters', () => {
  const results = [{ title: 'A', url: 'https://a.example/', content: 'x', date: '2025-01-01' }];
  assert.equal(
    chatSseEvent({ ...head, paramsKey: 'venice_parameters' }, [{ type: 'citations', results }]),
    `data: ${pre}"choices":[],"venice_parameters":{"web_search_citations":[{"title":"A","url":"https://a.example/","content":"x","date":"2025-01-01"}]}}\n\n`,
  );
});

test('the usage chunk (usage, cost, echo) and the in-band error each end the stream with [DONE]', () => {
  assert.equal(
    chatSseEvent(head, [
      {
        type: 'usage',
        usage: { prompt_tokens: 9, completion_tokens: 4, cached_tokens: 3 },
        cost: { usd: 17, diem: 0 },
        params: { enable_web_search: 'off', web_search_citations: [] },
      },
    ]),
    `data: ${pre}"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13,"prompt_tokens_details":{"cached_tokens":3},"completion_tokens_details":null},"cost":{"usd":0.000017,"diem":0},"service_parameters":{"enable_web_search":"off","web_search_citations":[]}}\n\n${SSE_DONE}`,
  );
  assert.equal(
    chatSseEvent(head, [{ type: 'error', message: 'Inference failed mid-stream: the model stopped before finishing.' }]),
    'data: {"error":{"message":"Inference failed mid-stream: the model stopped before finishing.","type":"server_error","code":"upstream_error","param":null}}\n\ndata: [DONE]\n\n',
  );
});

test('the head made once per stream: the same bytes as the whole chunk, kept apart per stream and escaped', () => {
  const other: StreamHead = { id: 'chatcmpl-"x"', created: 1, model: 'm/2\u2028', paramsKey: 'service_parameters' };
  const step = [{ type: 'delta' as const, index: 0, content: 'a' }];
  const whole = (h: StreamHead) =>
    `data: ${JSON.stringify({ id: h.id, object: 'chat.completion.chunk', created: h.created, model: h.model, choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] })}\n\n`;
  for (let i = 0; i < 2; i++) {
    assert.equal(chatSseEvent(head, step), whole(head));
    assert.equal(chatSseEvent(other, step), whole(other));
  }
});

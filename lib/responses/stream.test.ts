// The chat → Responses event mapping, checked by the `openai` client's own strict stream accumulator: every event
// sequence we emit must build the final response it expects, including a model that thinks again after it spoke.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ResponseStream } from 'openai/lib/responses/ResponseStream';
import type { ChatEvent, ChatStream } from '../chat/events.ts';
import type { ResponseHead } from './output.ts';
import { type ResponsesEvent, responsesStream } from './stream.ts';

const head: ResponseHead = { requestId: 'req1', createdAt: 1_800_000_000, model: 'm', request: { model: 'm', input: 'x' } };
const usage = { type: 'usage', usage: { prompt_tokens: 3, completion_tokens: 9 }, cost: { usd: 1, diem: 0 }, params: { web_search_citations: [] } } as const;

async function* chat(steps: ChatEvent[][]): ChatStream {
  for (const s of steps) yield s;
}

async function collect(steps: ChatEvent[][]): Promise<ResponsesEvent[]> {
  const out: ResponsesEvent[] = [];
  for await (const step of responsesStream(head, chat(steps))) out.push(...step);
  return out;
}

/** The events as the openai client's ResponseStream reads them (newline-delimited JSON), and its final response. */
function accumulate(events: ResponsesEvent[]) {
  const body = new ReadableStream({
    start(c) {
      c.enqueue(new TextEncoder().encode(events.map((e) => JSON.stringify(e)).join('\n')));
      c.close();
    },
  });
  return ResponseStream.fromReadableStream(body).finalResponse();
}

test('reasoning, text, thinking again, more text and a streamed call: numbered events the client accumulates', async () => {
  const events = await collect([
    [{ type: 'delta', index: 0, role: 'assistant' }],
    [{ type: 'delta', index: 0, reasoning: 'Let me ' }],
    [{ type: 'delta', index: 0, reasoning: 'think.' }],
    [{ type: 'delta', index: 0, content: 'Hel' }],
    [{ type: 'delta', index: 0, reasoning: 'Again.' }],
    [{ type: 'delta', index: 0, content: 'lo' }],
    [{ type: 'tool_calls', index: 0, calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"a"' } }] }],
    [{ type: 'tool_calls', index: 0, calls: [{ index: 0, function: { arguments: ':1}' } }] }],
    [{ type: 'finish', index: 0, reason: 'tool_calls' }],
    [usage],
  ]);
  assert.deepEqual(
    events.map((e) => e.sequence_number),
    events.map((_, i) => i),
  );
  assert.equal(events[0].type, 'response.created');
  assert.equal(events.at(-1)!.type, 'response.completed');
  const final = await accumulate(events);
  assert.deepEqual(
    final.output.map((i) => [i.type, i.id]),
    [
      ['reasoning', 'rs_req1'],
      ['message', 'msg_req1'],
      ['reasoning', 'rs_req1_1'],
      ['message', 'msg_req1_1'],
      ['function_call', 'fc_req1_0'],
    ],
  );
  assert.equal(final.output_text, 'Hello');
  const call = final.output[4];
  assert.ok(call.type === 'function_call');
  assert.equal(call.call_id, 'call_a');
  assert.equal(call.arguments, '{"a":1}');
  assert.equal(final.usage?.total_tokens, 12);
});

test('an empty answer still has its (empty) message; a token-limit stop is response.incomplete', async () => {
  const empty = await collect([[{ type: 'finish', index: 0, reason: 'stop' }], [usage]]);
  const final = await accumulate(empty);
  assert.deepEqual(
    final.output.map((i) => i.type),
    ['message'],
  );
  const cut = await collect([[{ type: 'delta', index: 0, content: 'w1 w2' }], [{ type: 'finish', index: 0, reason: 'length' }], [usage]]);
  const last = cut.at(-1)!;
  assert.equal(last.type, 'response.incomplete');
  assert.deepEqual((last.response as { incomplete_details: unknown }).incomplete_details, { reason: 'max_output_tokens' });
  assert.equal((await accumulate(cut)).output_text, 'w1 w2');
});

test('caret citations become url_citation annotations on the message', async () => {
  const sources = [{ title: 'A', url: 'https://a.example', content: '' }];
  const events = await collect([[{ type: 'delta', index: 0, content: 'Lagoons are shallow ^1^.' }], [{ ...usage, params: { web_search_citations: sources } }]]);
  const final = await accumulate(events);
  const msg = final.output[0];
  assert.ok(msg.type === 'message' && msg.content[0].type === 'output_text');
  assert.deepEqual(msg.content[0].annotations, [{ type: 'url_citation', url: 'https://a.example', title: 'A', start_index: 20, end_index: 23 }]);
});

test('a failure midway ends with an error event, which the client raises', async () => {
  const events = await collect([[{ type: 'delta', index: 0, content: 'part' }], [{ type: 'error', message: 'Inference failed mid-stream' }]]);
  assert.equal(events.at(-1)!.type, 'error');
  await assert.rejects(accumulate(events), /mid-stream/);
});

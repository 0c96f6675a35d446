// POST /responses over HTTP: the Response object, its typed SSE events, input items and tools, errors, and the same
// billing as chat (one usage row, endpoint /responses).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, post, startHarness } from '../support/harness.ts';

let h: Harness;
let key: string;
let accountId: string;
before(async () => {
  h = await startHarness({ systemPrompts: ['OPERATOR PROMPT'] });
  ({ key, accountId } = await h.newAccount({ usd: 50 }));
});
after(() => h.close());

const respond = (body: Record<string, unknown>, headers?: Record<string, string>) => post(h, '/responses', key, { model: 'scripted-model', ...body }, headers);
const lastUpstream = () => h.engine.requests.at(-1)!.body;
const usageRow = async (requestId: string) => (await h.svc.ledger.drain(), h.svc.store.get<any>('SELECT * FROM usage WHERE request_id = $1', [requestId]));

/** The SSE body as `{event, data}` pairs (`[DONE]` as the data of an unnamed event). */
function sse(text: string): { event?: string; data: any }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() && !block.startsWith(':'))
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)![1];
      return { event, data: data === '[DONE]' ? data : JSON.parse(data) };
    });
}

describe('non-streamed', () => {
  test('a string input: the Response object, usage, headers, and one usage row at the chat price', async () => {
    const r = await respond({ input: 'hello' });
    assert.equal(r.status, 200);
    const b = r.json;
    const rid = r.headers.get('cf-ray')!;
    assert.equal(b.id, `resp_${rid}`);
    assert.equal(b.object, 'response');
    assert.equal(typeof b.created_at, 'number');
    assert.equal(b.status, 'completed');
    assert.equal(b.model, 'scripted-model');
    assert.equal('error' in b, false, 'no error member when there is none');
    assert.equal(b.incomplete_details, null);
    assert.equal(b.output.length, 1);
    assert.deepEqual(b.output[0], {
      type: 'message',
      id: `msg_${rid}`,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Hello from the scripted engine.', annotations: [], logprobs: [] }],
    });
    assert.equal(b.usage.output_tokens, 5);
    assert.equal(b.usage.total_tokens, b.usage.input_tokens + 5);
    assert.deepEqual(b.usage.input_tokens_details, { cached_tokens: 0 });
    assert.deepEqual(b.usage.output_tokens_details, { reasoning_tokens: 0 });
    assert.equal('cost' in b, false);
    assert.equal(r.headers.get('x-service-model-id'), 'scripted-model');
    assert.match(r.headers.get('x-service-balance-usd')!, /^\d+\.\d{6}$/);
    assert.ok(r.headers.get('x-ratelimit-remaining-requests'));
    // The upstream got a chat request: the operator prompt, then the input as a user message.
    assert.deepEqual(lastUpstream().messages, [
      { role: 'system', content: 'OPERATOR PROMPT' },
      { role: 'user', content: 'hello' },
    ]);
    const row = await usageRow(rid);
    assert.equal(row.endpoint, '/responses');
    assert.equal(row.model_id, 'scripted-model');
    assert.equal(Number(row.completion_tokens), 5);
    assert.equal(Number(row.prompt_tokens), b.usage.input_tokens);
    // scripted-model: 1 USD / 2 USD per million tokens.
    assert.equal(Number(row.usd), b.usage.input_tokens * 1 + 5 * 2);
  });

  test('instructions, message items (input_text, output_text, typeless), sampling and the token cap reach the engine', async () => {
    const r = await respond({
      instructions: 'Be brief.',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'first' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'an earlier answer', annotations: [] }] },
        { role: 'developer', content: 'dev note' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'second' },
            { type: 'text', text: '[[tokens:3]]' },
          ],
        },
        { type: 'item_reference', id: 'msg_stored_elsewhere' },
        { type: 'reasoning', id: 'rs_1', summary: [] },
      ],
      temperature: 0.3,
      top_p: 0.8,
      max_output_tokens: 50,
      reasoning: { effort: 'low' },
      metadata: { purpose: 'test' },
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.output[0].content[0].text, 'w1 w2 w3');
    assert.deepEqual(r.json.metadata, { purpose: 'test' });
    assert.equal(r.json.instructions, 'Be brief.');
    assert.equal(r.json.max_output_tokens, 50);
    const up = lastUpstream();
    assert.deepEqual(up.messages, [
      { role: 'system', content: 'OPERATOR PROMPT\n\nBe brief.' },
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'an earlier answer' },
      { role: 'system', content: 'dev note' },
      { role: 'user', content: 'second\n\n[[tokens:3]]' },
    ]);
    assert.equal(up.temperature, 0.3);
    assert.equal(up.top_p, 0.8);
    assert.equal(up.max_tokens ?? up.max_completion_tokens, 50);
    assert.equal(up.reasoning_effort, 'low');
  });

  test('reasoning becomes a reasoning item before the message, with its tokens in usage', async () => {
    for (const marker of ['[[reasoning]]', '[[think]]']) {
      const r = await respond({ input: marker });
      const [reasoning, message] = r.json.output;
      assert.equal(reasoning.type, 'reasoning', marker);
      assert.match(reasoning.id, /^rs_/);
      assert.equal(reasoning.summary[0].type, 'summary_text');
      assert.ok(reasoning.summary[0].text.length > 10);
      assert.equal(message.content[0].text, 'Hello from the scripted engine.');
    }
    const native = await respond({ input: '[[reasoning]]' });
    assert.ok(native.json.usage.output_tokens_details.reasoning_tokens > 0);
    const stripped = await respond({ input: '[[think]]', service_parameters: { strip_thinking_response: true } });
    assert.deepEqual(
      stripped.json.output.map((i: any) => i.type),
      ['message'],
    );
  });

  test('function tools in both nestings; a call is a function_call item; its output goes back as a tool message', async () => {
    const flat = { type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };
    const nested = { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } };
    const r = await respond({ input: 'Weather in Oslo? [[tool:get_weather:{"city":"Oslo"}]]', tools: [flat, nested], tool_choice: 'auto' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      lastUpstream().tools.map((t: any) => t.function.name),
      ['get_weather', 'get_time'],
    );
    assert.equal(lastUpstream().tool_choice, 'auto');
    const call = r.json.output.find((i: any) => i.type === 'function_call');
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Oslo' });
    assert.equal(call.status, 'completed');
    assert.match(call.id, /^fc_/);
    assert.ok(call.call_id);
    assert.ok(!r.json.output.some((i: any) => i.type === 'message'), 'only tools were called');
    assert.deepEqual(
      r.json.tools.map((t: any) => t.name),
      ['get_weather', 'get_time'],
    );

    const next = await respond({
      input: [
        { role: 'user', content: 'Weather in Oslo? [[tool:get_weather:{"city":"Oslo"}]]' },
        { type: 'function_call', call_id: call.call_id, name: 'get_weather', arguments: call.arguments },
        { type: 'function_call_output', call_id: call.call_id, output: { temperature: 12 } },
      ],
      tools: [flat],
      tool_choice: { type: 'function', name: 'get_weather' },
    });
    assert.equal(next.status, 200, next.text);
    assert.equal(next.json.output[0].content[0].text, 'Hello from the scripted engine.');
    const up = lastUpstream();
    assert.deepEqual(up.messages.slice(-2), [
      { role: 'assistant', content: null, tool_calls: [{ id: call.call_id, type: 'function', function: { name: 'get_weather', arguments: call.arguments } }] },
      { role: 'tool', content: '{"temperature":12}', tool_call_id: call.call_id },
    ]);
    assert.deepEqual(up.tool_choice, { type: 'function', function: { name: 'get_weather' } });
  });

  test('text.format json_schema becomes response_format; the token cap makes the response incomplete', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] };
    const r = await respond({ input: '[[json]]', text: { format: { type: 'json_schema', name: 'answer', schema, strict: true } } });
    assert.equal(r.json.output[0].content[0].text, '{"answer":42}');
    assert.deepEqual(lastUpstream().response_format, { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } });
    assert.equal(r.json.text.format.type, 'json_schema');
    const cut = await respond({ input: '[[tokens:20]]', max_output_tokens: 4 });
    assert.equal(cut.json.status, 'incomplete');
    assert.deepEqual(cut.json.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(cut.json.output[0].status, 'incomplete');
    assert.equal(cut.json.usage.output_tokens, 4);
  });

  test('images as input_image (URL string or object) on a vision model; the gate refuses a model without vision', async () => {
    const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const input = [
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'what is this' },
          { type: 'input_image', image_url: png, detail: 'low' },
        ],
      },
    ];
    const r = await respond({ model: 'vision-model', input });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(lastUpstream().messages.at(-1).content[1], { type: 'image_url', image_url: { url: png, detail: 'low' } });
    const refused = await respond({ input });
    assert.equal(refused.status, 400);
    assert.equal(refused.json.code, 'UNSUPPORTED_CONTENT');
  });

  test('input_file parts are read as files are on chat (their text reaches the model)', async () => {
    const note = `data:text/plain;base64,${Buffer.from('The lagoon is 3 km wide.').toString('base64')}`;
    const r = await respond({
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_file', filename: 'note.txt', file_data: note },
            { type: 'input_text', text: 'How wide?' },
          ],
        },
      ],
    });
    assert.equal(r.status, 200, r.text);
    const sent = lastUpstream().messages.at(-1).content;
    assert.match(sent, /note\.txt/);
    assert.match(sent, /The lagoon is 3 km wide\./);
  });

  test('hosted tools are accepted and not offered; web_search: true with no search configured is a 400 that says so', async () => {
    const hosted = [
      { type: 'code_interpreter', container: { type: 'auto' } },
      { type: 'file_search', vector_store_ids: [] },
    ];
    const r = await respond({ model: 'plain-model', input: 'hi', tools: hosted, tool_choice: 'required' });
    assert.equal(r.status, 200, r.text);
    assert.equal(lastUpstream().tools, undefined);
    assert.equal(lastUpstream().tool_choice, undefined);
    const search = await respond({ input: 'hi', web_search: true });
    assert.equal(search.status, 400);
    assert.match(search.json.error, /Web search is not configured/);
    // As a tool, web search is the model's choice (auto): without a provider the answer comes without it.
    const tool = await respond({ input: 'hi', tools: [{ type: 'web_search_preview' }] });
    assert.equal(tool.status, 200, tool.text);
    assert.equal(lastUpstream().tools, undefined);
  });
});

describe('streamed', () => {
  test('typed events in order with sequence numbers, deltas that add up, response.completed with usage, [DONE]', async () => {
    const r = await respond({ input: '[[reasoning]] [[tokens:4]]', stream: true });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type')!, /^text\/event-stream/);
    const events = sse(r.text);
    assert.equal(events.at(-1)!.data, '[DONE]');
    const evs = events.slice(0, -1);
    for (const [i, e] of evs.entries()) {
      assert.equal(e.event, e.data.type);
      assert.equal(e.data.sequence_number, i);
    }
    const types = evs.map((e) => e.data.type);
    assert.deepEqual(types.slice(0, 4), ['response.created', 'response.in_progress', 'response.output_item.added', 'response.reasoning_summary_part.added']);
    assert.equal(types.at(-1), 'response.completed');
    const rid = r.headers.get('cf-ray')!;
    assert.equal(evs[0].data.response.id, `resp_${rid}`);
    assert.equal(evs[0].data.response.status, 'in_progress');
    const reasoning = evs
      .filter((e) => e.data.type === 'response.reasoning_summary_text.delta')
      .map((e) => e.data.delta)
      .join('');
    assert.equal(reasoning, 'The user wants a scripted answer, so I will give one.');
    const text = evs
      .filter((e) => e.data.type === 'response.output_text.delta')
      .map((e) => e.data.delta)
      .join('');
    assert.equal(text, 'w1 w2 w3 w4');
    const done = evs.find((e) => e.data.type === 'response.output_text.done')!.data;
    assert.equal(done.text, text);
    assert.equal(done.item_id, `msg_${rid}`);
    assert.equal(done.output_index, 1);
    const completed = evs.at(-1)!.data.response;
    assert.equal(completed.status, 'completed');
    assert.deepEqual(
      completed.output.map((i: any) => i.type),
      ['reasoning', 'message'],
    );
    assert.equal(completed.output[1].content[0].text, text);
    assert.ok(completed.usage.output_tokens_details.reasoning_tokens > 0);
    const row = await usageRow(rid);
    assert.equal(row.endpoint, '/responses');
    assert.equal(Number(row.completion_tokens), completed.usage.output_tokens);
  });

  test('function calls stream as output items with argument deltas', async () => {
    const tools = [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }];
    const r = await respond({ input: '[[tool:lookup:{"q":"lagoon"}]]', tools, stream: true });
    const evs = sse(r.text).slice(0, -1);
    const added = evs.find((e) => e.data.type === 'response.output_item.added')!.data;
    assert.equal(added.item.type, 'function_call');
    assert.equal(added.item.name, 'lookup');
    const args = evs
      .filter((e) => e.data.type === 'response.function_call_arguments.delta')
      .map((e) => e.data.delta)
      .join('');
    assert.deepEqual(JSON.parse(args), { q: 'lagoon' });
    const done = evs.find((e) => e.data.type === 'response.function_call_arguments.done')!.data;
    assert.equal(done.arguments, args);
    assert.deepEqual(
      evs.at(-1)!.data.response.output.map((i: any) => [i.type, i.status]),
      [['function_call', 'completed']],
    );
  });

  test('a failure midway is an error event (then [DONE]); what was produced is billed', async () => {
    const r = await respond({ input: '[[tokens:10]] [[error_mid]]', stream: true });
    assert.equal(r.status, 200);
    const events = sse(r.text);
    assert.equal(events.at(-1)!.data, '[DONE]');
    const err = events.at(-2)!;
    assert.equal(err.event, 'error');
    assert.equal(err.data.type, 'error');
    assert.match(err.data.message, /mid-stream/);
    assert.ok(!events.some((e) => e.data.type === 'response.completed'));
    const row = await usageRow(r.headers.get('cf-ray')!);
    assert.equal(Number(row.completion_tokens), 3);
  });

  test('a client that aborts mid-stream stops the upstream and is billed for what was produced', async () => {
    h.engine.reset();
    const ac = new AbortController();
    const res = await fetch(`${h.base}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'scripted-model', stream: true, input: '[[slow:40]] [[tokens:200]]' }),
      signal: ac.signal,
    });
    const rid = res.headers.get('cf-ray')!;
    const reader = res.body!.getReader();
    let received = '';
    while ((received.match(/output_text\.delta/g) ?? []).length < 10) received += new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    for (let i = 0; i < 200 && (h.engine.abortedStreams < 1 || !(await usageRow(rid))); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(h.engine.abortedStreams, 1);
    const row = await usageRow(rid);
    assert.ok(Number(row.completion_tokens) >= 5 && Number(row.completion_tokens) < 200, `billed ${row.completion_tokens}`);
    assert.equal((await h.svc.ledger.balances(accountId)).usdHeld, 0);
  });

  test('an upstream failure before the first byte is a plain HTTP error, and nothing is billed', async () => {
    const r = await respond({ input: '[[status:500]]', stream: true });
    assert.equal(r.status, 500);
    assert.equal(r.json.code, 'INFERENCE_FAILED');
    assert.equal(await usageRow(r.headers.get('cf-ray')!), undefined);
  });
});

describe('refusals', () => {
  test('400s name the field; stateless features are refused with the reason; unknown fields pass', async () => {
    const missing = await post(h, '/responses', key, { model: 'scripted-model' });
    assert.equal(missing.status, 400);
    assert.ok(missing.json.details.input);
    const bad = await respond({ input: [{ type: 'message', role: 'wizard', content: 'x' }], temperature: 3 });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error, /temperature/);
    const prev = await respond({ input: 'x', previous_response_id: 'resp_123' });
    assert.equal(prev.status, 400);
    assert.match(prev.json.error, /stateless/);
    const bg = await respond({ input: 'x', background: true });
    assert.equal(bg.status, 400);
    const onlyRefs = await respond({ input: [{ type: 'item_reference', id: 'msg_1' }] });
    assert.equal(onlyRefs.status, 400);
    assert.match(onlyRefs.json.error, /stateless/);
    const fileId = await respond({ model: 'vision-model', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] });
    assert.equal(fileId.status, 400);
    assert.match(fileId.json.error, /file_id/);
    const unknownItem = await respond({ input: [{ type: 'teleport', role: 'user' }] });
    assert.equal(unknownItem.status, 400);
    assert.equal((await respond({ input: 'x', prompt_cache_retention: 'in_memory', service_tier: 'auto', some_future_field: 1 })).status, 200);
  });

  test('401 for a bad key, the x402 402 with none, 402 when the balance cannot cover the hold, 404 for an unknown model', async () => {
    assert.equal((await post(h, '/responses', 'lgn_inf_nope', { model: 'scripted-model', input: 'x' })).status, 401);
    const anon = await post(h, '/responses', undefined, { model: 'scripted-model', input: 'x' });
    assert.equal(anon.status, 402);
    const { key: poor } = await h.newAccount({ usd: 0 });
    const broke = await post(h, '/responses', poor, { model: 'scripted-model', input: 'x' });
    assert.equal(broke.status, 402);
    assert.equal(broke.json.code, 'INSUFFICIENT_BALANCE');
    const unknown = await respond({ model: 'no-such-model', input: 'x' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.code, 'MODEL_NOT_FOUND');
  });

  test('rate limits apply per model as on chat (429 after the budget, chat and responses share it)', async () => {
    const limited = await startHarness({ limits: { text: { default: { XS: { rpm: 2, tpm: 1_000_000 } } } } });
    try {
      const { key: k } = await limited.newAccount();
      assert.equal((await post(limited, '/chat/completions', k, { model: 'scripted-model', messages: [{ role: 'user', content: 'x' }] })).status, 200);
      assert.equal((await post(limited, '/responses', k, { model: 'scripted-model', input: 'x' })).status, 200);
      const third = await post(limited, '/responses', k, { model: 'scripted-model', input: 'x' });
      assert.equal(third.status, 429);
      assert.equal(third.json.code, 'RATE_LIMIT_EXCEEDED');
    } finally {
      await limited.close();
    }
  });
});

test('usage rows: one per response, none for refusals', async () => {
  const before = (await h.svc.store.all<any>('SELECT request_id FROM usage WHERE account_id = $1', [accountId])).length;
  await respond({ input: 'x' });
  await respond({ input: 'x', temperature: 9 });
  await h.svc.ledger.drain();
  const after = (await h.svc.store.all<any>('SELECT request_id FROM usage WHERE account_id = $1', [accountId])).length;
  assert.equal(after, before + 1);
});

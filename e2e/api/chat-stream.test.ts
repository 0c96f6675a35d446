// Streaming chat completions: chunk shapes, usage chunk, in-band failures, client aborts and what they cost.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Harness, post, sseEvents, startHarness } from '../support/harness.ts';

let h: Harness;
let key: string;
let accountId: string;
before(async () => {
  h = await startHarness();
  ({ key, accountId } = await h.newAccount({ usd: 50 }));
});
after(() => h.close());

const stream = (content: string, extra: Record<string, unknown> = {}) =>
  post(h, '/chat/completions', key, { model: 'scripted-model', stream: true, messages: [{ role: 'user', content }], ...extra });

const usageRows = async () => (await h.svc.ledger.drain(), h.svc.store.all<any>('SELECT * FROM usage WHERE account_id = $1 ORDER BY created_at', [accountId]));

test('SSE chunks, a final choices: [] chunk with usage and cost, then [DONE]', async () => {
  const r = await stream('[[tokens:4]]');
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type')!, /^text\/event-stream/);
  assert.equal(r.headers.get('x-service-model-id'), 'scripted-model');
  const ev = sseEvents(r.text);
  assert.equal(ev.at(-1), '[DONE]');
  const chunks = ev.slice(0, -1);
  for (const c of chunks) {
    assert.equal(c.object, 'chat.completion.chunk');
    assert.match(c.id, /^chatcmpl-/);
    assert.equal(c.id, chunks[0].id);
    assert.equal(c.model, 'scripted-model');
  }
  assert.equal(chunks[0].choices[0].delta.role, 'assistant');
  const text = chunks
    .flatMap((c) => c.choices)
    .map((c: any) => c.delta.content ?? '')
    .join('');
  assert.equal(text, 'w1 w2 w3 w4');
  const final = chunks.at(-1);
  assert.deepEqual(final.choices, []);
  assert.equal(final.usage.completion_tokens, 4);
  assert.equal(final.cost.usd, (final.usage.prompt_tokens + 8) / 1e6);
  assert.equal(final.service_parameters.enable_web_search, 'off');
  assert.equal(chunks.at(-2).choices[0].finish_reason, 'stop');
});

test('reasoning streams as delta.reasoning_content, <think> split across chunks included', async () => {
  for (const [marker, reasoning] of [
    ['[[think]]', 'Let me think this through.'],
    ['[[reasoning]]', 'The user wants a scripted answer, so I will give one.'],
  ]) {
    const ev = sseEvents((await stream(marker)).text).slice(0, -1);
    const deltas = ev.flatMap((c) => c.choices).map((c: any) => c.delta);
    assert.equal(deltas.map((d: any) => d.reasoning_content ?? '').join(''), reasoning, marker);
    assert.equal(deltas.map((d: any) => d.content ?? '').join(''), 'Hello from the scripted engine.', marker);
    assert.ok(!deltas.some((d: any) => (d.content ?? '').includes('<')), marker);
  }
  const stripped = sseEvents((await stream('[[think]]', { service_parameters: { strip_thinking_response: true } })).text).slice(0, -1);
  assert.ok(!stripped.flatMap((c) => c.choices).some((c: any) => c.delta.reasoning_content));
});

test('tool calls stream as delta.tool_calls fragments', async () => {
  const tools = [{ type: 'function', function: { name: 'lookup' } }];
  const ev = sseEvents((await stream('[[tool:lookup:{"q":"lagoon"}]]', { tools })).text).slice(0, -1);
  const calls = ev.flatMap((c) => c.choices).flatMap((c: any) => c.delta.tool_calls ?? []);
  assert.equal(calls[0].function.name, 'lookup');
  assert.deepEqual(JSON.parse(calls.map((c: any) => c.function?.arguments ?? '').join('')), { q: 'lagoon' });
  assert.equal(ev.flatMap((c) => c.choices).at(-1).finish_reason, 'tool_calls');
});

test('n = 2 streams both choices by index', async () => {
  const ev = sseEvents((await stream('[[tokens:2]]', { n: 2 })).text).slice(0, -1);
  const byIndex = [0, 1].map((i) =>
    ev
      .flatMap((c) => c.choices)
      .filter((c: any) => c.index === i)
      .map((c: any) => c.delta.content ?? '')
      .join(''),
  );
  assert.deepEqual(byIndex, ['w1 w2', 'w1 w2']);
  assert.equal(ev.at(-1).usage.completion_tokens, 4);
});

test('a mid-stream engine failure becomes an in-band error chunk before [DONE], billed for what was produced', async () => {
  for (const marker of ['[[fail_mid]]', '[[error_mid]]']) {
    const before = (await usageRows()).length;
    const r = await stream(`${marker} [[tokens:10]]`);
    assert.equal(r.status, 200);
    const ev = sseEvents(r.text);
    assert.equal(ev.at(-1), '[DONE]');
    const err = ev.at(-2);
    assert.equal(err.error.type, 'server_error');
    assert.match(err.error.message, /failed mid-stream/);
    const rows = await usageRows();
    assert.equal(rows.length, before + 1, marker);
    assert.equal(Number(rows.at(-1).completion_tokens), 3, marker);
  }
});

test('an engine failure before any output is a plain HTTP error and costs nothing', async () => {
  const before = (await usageRows()).length;
  const r = await stream('[[status:500]]');
  assert.equal(r.status, 500);
  assert.equal(r.json.code, 'INFERENCE_FAILED');
  assert.equal((await usageRows()).length, before);
  await h.svc.ledger.drain();
  const held = await h.svc.store.get<any>('SELECT usd_held FROM accounts WHERE id = $1', [accountId]);
  assert.equal(Number(held.usd_held), 0);
});

test('a client that aborts mid-stream stops the upstream and is billed for the tokens produced', async () => {
  h.engine.reset();
  const before = (await usageRows()).length;
  const ac = new AbortController();
  const res = await fetch(`${h.base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'scripted-model', stream: true, messages: [{ role: 'user', content: '[[slow:40]] [[tokens:200]]' }] }),
    signal: ac.signal,
  });
  const reader = res.body!.getReader();
  let received = '';
  while ((received.match(/"content"/g) ?? []).length < 5) received += new TextDecoder().decode((await reader.read()).value);
  ac.abort();
  // The upstream sees the abort, and the partial usage is settled.
  for (let i = 0; i < 100 && (h.engine.abortedStreams < 1 || (await usageRows()).length === before); i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(h.engine.abortedStreams, 1);
  const row = (await usageRows()).at(-1);
  assert.equal((await usageRows()).length, before + 1);
  assert.ok(Number(row.completion_tokens) >= 5 && Number(row.completion_tokens) < 200, `billed ${row.completion_tokens}`);
  assert.ok(Number(row.usd) > 0);
  await h.svc.ledger.drain();
  const held = await h.svc.store.get<any>('SELECT usd_held FROM accounts WHERE id = $1', [accountId]);
  assert.equal(Number(held.usd_held), 0);
});

test('a stream that goes quiet gets SSE keep-alive comments, which clients ignore', async () => {
  const h2 = await startHarness({ env: { LAGOON_SSE_KEEPALIVE_MS: '100' } });
  try {
    const { key: k2 } = await h2.newAccount();
    const r = await post(h2, '/chat/completions', k2, {
      model: 'scripted-model',
      stream: true,
      messages: [{ role: 'user', content: '[[slow:400]] [[tokens:3]]' }],
    });
    assert.match(r.text, /^: keep-alive$/m);
    const text = sseEvents(r.text)
      .slice(0, -1)
      .flatMap((e) => e.choices)
      .map((c: any) => c.delta.content ?? '')
      .join('');
    assert.equal(text, 'w1 w2 w3');
  } finally {
    await h2.close();
  }
});

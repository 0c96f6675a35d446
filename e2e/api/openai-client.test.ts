// The official `openai` npm client against Lagoon's base URL, unmodified.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
let client: OpenAI;
before(async () => {
  h = await startHarness();
  const { key } = await h.newAccount({ usd: 10 });
  client = new OpenAI({ apiKey: key, baseURL: h.base, maxRetries: 0 });
});
after(() => h.close());

test('plain completion', async () => {
  const r = await client.chat.completions.create({ model: 'scripted-model', messages: [{ role: 'user', content: 'hello' }] });
  assert.equal(r.choices[0].message.content, 'Hello from the scripted engine.');
  assert.equal(r.usage?.completion_tokens, 5);
});

test('streamed completion, with the usage chunk', async () => {
  const s = await client.chat.completions.create({
    model: 'scripted-model',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: '[[tokens:6]]' }],
  });
  let text = '';
  let usage;
  for await (const chunk of s) {
    text += chunk.choices[0]?.delta?.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  assert.equal(text, 'w1 w2 w3 w4 w5 w6');
  assert.equal(usage?.completion_tokens, 6);
});

test('n = 2', async () => {
  const r = await client.chat.completions.create({ model: 'scripted-model', n: 2, messages: [{ role: 'user', content: '[[tokens:2]]' }] });
  assert.equal(r.choices.length, 2);
});

test('logprobs', async () => {
  const r = await client.chat.completions.create({
    model: 'scripted-model',
    logprobs: true,
    top_logprobs: 3,
    messages: [{ role: 'user', content: '[[tokens:3]]' }],
  });
  assert.equal(r.choices[0].logprobs?.content?.length, 3);
  assert.equal(r.choices[0].logprobs?.content?.[0].top_logprobs.length, 3);
});

test('a tool call, and the stream helper assembling one', async () => {
  const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
  const r = await client.chat.completions.create({
    model: 'scripted-model',
    tools,
    messages: [{ role: 'user', content: '[[tool:get_weather:{"city":"Oslo"}]]' }],
  });
  const call = r.choices[0].message.tool_calls?.[0];
  assert.equal(r.choices[0].finish_reason, 'tool_calls');
  assert.ok(call && call.type === 'function');
  assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Oslo' });
  const runner = client.chat.completions.stream({
    model: 'scripted-model',
    tools,
    messages: [{ role: 'user', content: '[[tool:get_weather:{"city":"Lima"}]]' }],
  });
  const final = await runner.finalChatCompletion();
  const streamed = final.choices[0].message.tool_calls?.[0];
  assert.ok(streamed && streamed.type === 'function');
  assert.deepEqual(JSON.parse(streamed.function.arguments), { city: 'Lima' });
});

test('errors surface as the client’s typed errors with our status and message', async () => {
  await assert.rejects(client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }), (e: unknown) => {
    assert.ok(e instanceof OpenAI.NotFoundError);
    assert.match(e.message, /Specified model not found/);
    return true;
  });
  const anon = new OpenAI({ apiKey: 'lgn_inf_wrong', baseURL: h.base, maxRetries: 0 });
  await assert.rejects(anon.chat.completions.create({ model: 'scripted-model', messages: [{ role: 'user', content: 'x' }] }), OpenAI.AuthenticationError);
  await assert.rejects(
    client.chat.completions.create({ model: 'scripted-model', messages: [{ role: 'user', content: '[[status:503]]' }] }),
    (e: unknown) => e instanceof OpenAI.APIError && e.status === 503,
  );
});

test('models.list reads the catalogue', async () => {
  const ids = [];
  for await (const m of client.models.list()) ids.push(m.id);
  assert.ok(ids.includes('scripted-model'));
});

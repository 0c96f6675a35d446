// POST /chat/completions, non-streamed: shapes, parameters, service parameters, model resolution, headers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { request } from 'undici';
import { type Harness, post, startHarness } from '../support/harness.ts';

let h: Harness;
let key: string;
before(async () => {
  h = await startHarness({ systemPrompts: ['OPERATOR PROMPT'] });
  ({ key } = await h.newAccount({ usd: 50 }));
});
after(() => h.close());

const chat = (body: Record<string, unknown>, headers?: Record<string, string>) =>
  post(h, '/chat/completions', key, { model: 'scripted-model', ...body }, headers);
const user = (content: unknown) => [{ role: 'user', content }];
const lastUpstream = () => h.engine.requests.at(-1)!.body;

describe('response shape', () => {
  test('a completion has the spec fields, usage, cost and the parameters echo', async () => {
    const r = await chat({ messages: user('hello') });
    assert.equal(r.status, 200);
    const b = r.json;
    assert.match(b.id, /^chatcmpl-[0-9a-f]{24}$/);
    assert.equal(b.id, `chatcmpl-${r.headers.get('cf-ray')}`);
    assert.equal(b.object, 'chat.completion');
    assert.equal(typeof b.created, 'number');
    assert.equal(b.model, 'scripted-model');
    assert.deepEqual(b.choices[0].message, { role: 'assistant', content: 'Hello from the scripted engine.', reasoning_content: null, tool_calls: [] });
    assert.equal(b.choices[0].finish_reason, 'stop');
    assert.equal(b.choices[0].stop_reason, 'stop');
    assert.equal(b.choices[0].logprobs, null);
    assert.equal(b.usage.completion_tokens, 5);
    assert.equal(b.usage.total_tokens, b.usage.prompt_tokens + 5);
    // prices: 1 USD / 2 USD per 1M tokens
    assert.equal(b.cost.usd, (b.usage.prompt_tokens * 1 + 5 * 2) / 1e6);
    assert.equal(b.cost.diem, 0);
    assert.deepEqual(b.service_parameters, {
      enable_e2ee: false,
      enable_web_search: 'off',
      enable_web_citations: false,
      enable_web_scraping: false,
      include_service_system_prompt: true,
      include_search_results_in_stream: false,
      return_search_results_as_documents: false,
      strip_thinking_response: false,
      disable_thinking: false,
      web_search_citations: [],
    });
    assert.equal('system_fingerprint' in b, false);
  });

  test('headers: request id, revision, timestamp, model, router, balances before the request', async () => {
    const r = await chat({ messages: user('hello') });
    assert.match(r.headers.get('cf-ray')!, /^[0-9a-f]{24}$/);
    assert.match(r.headers.get('x-service-version')!, /^\d{8}\.\d{6}$/);
    assert.ok(!Number.isNaN(Date.parse(r.headers.get('x-service-timestamp')!)));
    assert.equal(r.headers.get('x-service-model-id'), 'scripted-model');
    assert.equal(r.headers.get('x-service-model-name'), 'Scripted scripted-model');
    assert.match(r.headers.get('x-service-model-router')!, /^openai:127\.0\.0\.1:\d+$/);
    assert.match(r.headers.get('x-service-balance-usd')!, /^\d+\.\d{6}$/);
    assert.equal(r.headers.get('x-service-balance-diem'), '0.000000');
    assert.equal(r.headers.get('x-service-model-deprecation-warning'), null);
  });

  test('a deprecated model carries the deprecation headers', async () => {
    const r = await chat({ model: 'old-model', messages: user('hi') });
    assert.equal(r.headers.get('x-service-model-deprecation-date'), '2027-01-31');
    assert.match(r.headers.get('x-service-model-deprecation-warning')!, /deprecated.*2027-01-31.*scripted-model/);
  });

  test('gzip and br compression when the client accepts it', async () => {
    const body = { model: 'scripted-model', messages: user('[[tokens:400]]') };
    for (const enc of ['gzip', 'br'] as const) {
      // undici's request() leaves the body as sent, so this checks it is really compressed.
      const res = await request(`${h.base}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'accept-encoding': enc },
        body: JSON.stringify(body),
      });
      assert.equal(res.headers['content-encoding'], enc);
      const raw = Buffer.from(await res.body.arrayBuffer());
      const json = JSON.parse((enc === 'gzip' ? gunzipSync(raw) : brotliDecompressSync(raw)).toString());
      assert.equal(json.usage.completion_tokens, 400);
    }
  });
});

describe('generation parameters', () => {
  test('sampling parameters and max_tokens reach the engine; stream_options asks for usage on streams only', async () => {
    await chat({ messages: user('hi'), temperature: 0.3, top_p: 0.5, seed: 7, frequency_penalty: 1.5, presence_penalty: -1, max_tokens: 33, user: 'u1' });
    const up = lastUpstream();
    assert.deepEqual(
      [up.temperature, up.top_p, up.seed, up.frequency_penalty, up.presence_penalty, up.max_tokens, up.model, up.stream],
      [0.3, 0.5, 7, 1.5, -1, 33, 'scripted', false],
    );
    await chat({ messages: user('hi'), stream: true });
    assert.deepEqual(lastUpstream().stream_options, { include_usage: true });
  });

  test('max_tokens cuts with finish_reason length; max_completion_tokens wins over max_tokens', async () => {
    let r = await chat({ messages: user('[[tokens:20]]'), max_tokens: 4 });
    assert.equal(r.json.choices[0].finish_reason, 'length');
    assert.equal(r.json.usage.completion_tokens, 4);
    r = await chat({ messages: user('[[tokens:20]]'), max_tokens: 4, max_completion_tokens: 6 });
    assert.equal(r.json.usage.completion_tokens, 6);
  });

  test('max tokens above the model cap is a 400', async () => {
    const r = await chat({ messages: user('hi'), max_completion_tokens: 5000 });
    assert.equal(r.status, 400);
    assert.match(r.json.error, /exceeds this model's maximum of 1024/);
  });

  test('stop sequences (a string or up to four)', async () => {
    let r = await chat({ messages: user('[[reply:one two three four]]'), stop: 'three' });
    assert.equal(r.json.choices[0].message.content, 'one two ');
    r = await chat({ messages: user('[[reply:one two three four]]'), stop: ['four', 'two'] });
    assert.equal(r.json.choices[0].message.content, 'one ');
    r = await chat({ messages: user('x'), stop: ['a', 'b', 'c', 'd', 'e'] });
    assert.equal(r.status, 400);
  });

  test('n > 1 gives several choices, billed for all of them', async () => {
    const r = await chat({ messages: user('[[tokens:3]]'), n: 2 });
    assert.deepEqual(
      r.json.choices.map((c: any) => c.index),
      [0, 1],
    );
    assert.equal(r.json.usage.completion_tokens, 6);
    assert.equal(r.json.cost.usd, (r.json.usage.prompt_tokens + 6 * 2) / 1e6);
  });

  test('logprobs with top_logprobs', async () => {
    const r = await chat({ messages: user('[[tokens:2]]'), logprobs: true, top_logprobs: 2 });
    const lp = r.json.choices[0].logprobs.content;
    assert.equal(lp.length, 2);
    assert.equal(lp[0].top_logprobs.length, 2);
    assert.equal(typeof lp[0].logprob, 'number');
  });

  test('tool calls: tools forwarded, tool_calls returned with finish_reason tool_calls', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const r = await chat({ messages: user('[[tool:get_weather:{"city":"Paris"}]]'), tools, tool_choice: 'auto', parallel_tool_calls: false });
    assert.equal(r.status, 200);
    const c = r.json.choices[0];
    assert.equal(c.finish_reason, 'tool_calls');
    assert.equal(c.message.content, null);
    assert.equal(c.message.tool_calls[0].function.name, 'get_weather');
    assert.deepEqual(JSON.parse(c.message.tool_calls[0].function.arguments), { city: 'Paris' });
    assert.deepEqual(lastUpstream().tools, tools);
    assert.equal(lastUpstream().parallel_tool_calls, false);
    // The tool result goes back in a follow-up turn.
    const r2 = await chat({
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: null, tool_calls: c.message.tool_calls },
        { role: 'tool', tool_call_id: c.message.tool_calls[0].id, content: '{"temp":21}' },
      ],
      tools,
    });
    assert.equal(r2.status, 200);
    assert.equal(lastUpstream().messages.at(-1).role, 'tool');
  });

  test('response_format json_schema is forwarded', async () => {
    const response_format = {
      type: 'json_schema',
      json_schema: {
        name: 'answer',
        strict: true,
        schema: { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false },
      },
    };
    const r = await chat({ messages: user('[[json]]'), response_format });
    assert.deepEqual(JSON.parse(r.json.choices[0].message.content), { answer: 42 });
    assert.deepEqual(lastUpstream().response_format, response_format);
  });

  test('capability gates: tools, logprobs and response_format on a model without them are 400s', async () => {
    const tools = [{ type: 'function', function: { name: 'f' } }];
    for (const extra of [{ tools }, { logprobs: true }, { response_format: { type: 'json_object' } }]) {
      const r = await chat({ model: 'plain-model', messages: user('hi'), ...extra });
      assert.equal(r.status, 400, JSON.stringify(extra));
      assert.match(r.json.error, /does not support/);
    }
  });
});

describe('reasoning', () => {
  test('<think> blocks move to reasoning_content', async () => {
    const r = await chat({ messages: user('[[think]]') });
    assert.equal(r.json.choices[0].message.content, 'Hello from the scripted engine.');
    assert.equal(r.json.choices[0].message.reasoning_content, 'Let me think this through.');
  });

  test('native reasoning_content and reasoning token usage pass through', async () => {
    const r = await chat({ messages: user('[[reasoning]]') });
    assert.ok(r.json.choices[0].message.reasoning_content.length > 0);
    assert.ok(r.json.usage.completion_tokens_details.reasoning_tokens > 0);
  });

  test('strip_thinking_response removes the reasoning', async () => {
    const r = await chat({ messages: user('[[think]]'), service_parameters: { strip_thinking_response: true } });
    assert.equal(r.json.choices[0].message.content, 'Hello from the scripted engine.');
    assert.equal(r.json.choices[0].message.reasoning_content, null);
    assert.equal(r.json.service_parameters.strip_thinking_response, true);
  });

  test('disable_thinking asks the engine not to think and strips what it still sends', async () => {
    const r = await chat({ messages: user('[[think]]'), service_parameters: { disable_thinking: true } });
    assert.deepEqual(lastUpstream().chat_template_kwargs, { enable_thinking: false });
    assert.equal(r.json.choices[0].message.reasoning_content, null);
    assert.equal(r.json.service_parameters.disable_thinking, true);
  });
});

describe('system prompts and characters', () => {
  const sent = async (body: Record<string, unknown>) =>
    JSON.parse((await chat({ ...body, messages: body.messages ?? user('[[echo_request]]') })).json.choices[0].message.content);

  test('operator prompts come first, the caller’s are appended', async () => {
    const msgs = await sent({
      messages: [
        { role: 'system', content: 'CALLER PROMPT' },
        { role: 'user', content: '[[echo_request]]' },
      ],
    });
    assert.equal(msgs[0].role, 'system');
    assert.equal(msgs[0].content, 'OPERATOR PROMPT\n\nCALLER PROMPT');
    assert.equal(msgs.length, 2);
  });

  test('include_service_system_prompt: false removes the operator prompts', async () => {
    const msgs = await sent({
      messages: [
        { role: 'developer', content: 'CALLER' },
        { role: 'user', content: '[[echo_request]]' },
      ],
      service_parameters: { include_service_system_prompt: false },
    });
    assert.deepEqual(msgs[0], { role: 'system', content: 'CALLER' });
  });

  test('character_slug applies the character’s system prompt; unknown slug is a 404', async () => {
    const msgs = await sent({ service_parameters: { character_slug: 'captain-reef' } });
    assert.match(msgs[0].content, /^OPERATOR PROMPT\n\nYou are Captain Reef/);
    const r = await chat({ messages: user('hi'), service_parameters: { character_slug: 'no-such-character' } });
    assert.equal(r.status, 404);
    assert.equal(r.json.code, 'CHARACTER_NOT_FOUND');
  });

  test('model suffixes override the body’s parameters', async () => {
    const r = await chat({
      model: 'scripted-model:include_service_system_prompt=false&character_slug=socratic-tutor&strip_thinking_response=true',
      messages: user('[[echo_request]]'),
      service_parameters: { include_service_system_prompt: true },
    });
    assert.equal(r.status, 200);
    assert.equal(r.json.model, 'scripted-model');
    const msgs = JSON.parse(r.json.choices[0].message.content);
    assert.match(msgs[0].content, /^You are a Socratic tutor/);
    assert.equal(r.json.service_parameters.character_slug, 'socratic-tutor');
    assert.equal(r.json.service_parameters.strip_thinking_response, true);
    assert.equal((await chat({ model: 'scripted-model:disable_thinking=maybe', messages: user('x') })).status, 400);
    assert.equal((await chat({ model: 'default:enable_web_search=off&unknown_key=1', messages: user('x') })).status, 200);
  });

  test('enable_web_search on without a search provider is a 400; auto and off are accepted and echoed', async () => {
    const on = await chat({ messages: user('x'), service_parameters: { enable_web_search: 'on' } });
    assert.equal(on.status, 400);
    assert.match(on.json.error, /search is not configured/i);
    const auto = await chat({
      messages: user('x'),
      service_parameters: {
        enable_web_search: 'auto',
        enable_web_citations: true,
        include_search_results_in_stream: true,
        return_search_results_as_documents: true,
        enable_web_scraping: false,
      },
    });
    assert.equal(auto.status, 200);
    assert.equal(auto.json.service_parameters.enable_web_search, 'auto');
    assert.equal(auto.json.service_parameters.enable_web_citations, true);
    assert.equal(auto.json.service_parameters.return_search_results_as_documents, true);
  });

  test('enable_e2ee on a model without it is ignored (the public default); enable_x_search is a 400; unknown service parameters are dropped', async () => {
    const e2ee = await chat({ messages: user('x'), service_parameters: { enable_e2ee: true } });
    assert.equal(e2ee.status, 200, e2ee.text);
    assert.equal(e2ee.json.service_parameters.enable_e2ee, false);
    assert.equal((await chat({ messages: user('x'), service_parameters: { enable_x_search: true } })).status, 400);
    assert.equal((await chat({ messages: user('x'), service_parameters: { made_up: 1 } })).status, 200);
  });
});

describe('model resolution', () => {
  test('a trait, a compatibility alias and a loosely written id resolve', async () => {
    for (const model of ['default', 'fastest', 'gpt-4o', 'SCRIPTED_MODEL', 'scripted.model']) {
      const r = await chat({ model, messages: user('hi') });
      assert.equal(r.status, 200, model);
      assert.equal(r.json.model, 'scripted-model');
    }
  });

  test('an unknown model is a 404 naming the available ones', async () => {
    const r = await chat({ model: 'no-such-model', messages: user('hi') });
    assert.equal(r.status, 404);
    assert.equal(r.json.code, 'MODEL_NOT_FOUND');
    assert.match(r.json.error, /no-such-model.*scripted-model/);
  });

  test('prompt_cache_key routes one conversation to one replica', async () => {
    const h2 = await startHarness({ replicas: 3 });
    try {
      const { key: k2 } = await h2.newAccount();
      const replicaOf = async (cacheKey: string) => {
        for (const r of h2.replicas) r.reset();
        await post(h2, '/chat/completions', k2, { model: 'replicated-model', messages: user('hi'), prompt_cache_key: cacheKey });
        return h2.replicas.findIndex((r) => r.requests.length === 1);
      };
      const seen = new Set<number>();
      for (let i = 0; i < 5; i++) seen.add(await replicaOf('conversation-A'));
      assert.equal(seen.size, 1);
      // Different keys spread across replicas.
      const spread = new Set<number>();
      for (let i = 0; i < 12; i++) spread.add(await replicaOf(`conversation-${i}`));
      assert.ok(spread.size > 1);
    } finally {
      await h2.close();
    }
  });
});

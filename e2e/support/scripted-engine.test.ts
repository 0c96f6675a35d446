import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { startScriptedEngine, tokenize } from './scripted-engine.ts';
import type { ScriptedEngine } from './scripted-engine.ts';

let engine: ScriptedEngine;
before(async () => {
  engine = await startScriptedEngine({ name: 'replica-a' });
});
after(async () => {
  await engine.close();
});
beforeEach(() => engine.reset());

const user = (content: unknown) => [{ role: 'user', content }];

function post(body: unknown, init: RequestInit = {}) {
  return fetch(`${engine.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-test': 'yes' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

async function complete(text: unknown, extra: Record<string, unknown> = {}) {
  const res = await post({ model: 'm1', messages: user(text), ...extra });
  assert.equal(res.status, 200);
  return res.json();
}

/** Parses a whole SSE body into JSON events (plus the literal '[DONE]'). */
function parseSse(text: string): any[] {
  return text
    .split('\n\n')
    .filter((f) => f.length)
    .map((f) => {
      assert.ok(f.startsWith('data: '), `bad frame ${f}`);
      const data = f.slice(6);
      return data === '[DONE]' ? '[DONE]' : JSON.parse(data);
    });
}

async function stream(text: unknown, extra: Record<string, unknown> = {}) {
  const res = await post({ model: 'm1', messages: user(text), stream: true, ...extra });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const events = parseSse(await res.text());
  assert.equal(events.at(-1), '[DONE]');
  const chunks = events.slice(0, -1);
  const content = chunks
    .flatMap((c) => c.choices)
    .map((c: any) => c.delta.content ?? '')
    .join('');
  return { chunks, content };
}

async function waitFor(cond: () => boolean, ms = 2000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('endpoints', () => {
  test('health, models, 404, x-replica header', async () => {
    const base = engine.url.replace(/\/v1$/, '');
    assert.match(engine.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const health = await fetch(`${base}/health`);
    assert.equal(health.status, 200);
    assert.equal(health.headers.get('x-replica'), 'replica-a');
    await health.body?.cancel();
    const models = await (await fetch(`${engine.url}/models`)).json();
    assert.deepEqual(
      models.data.map((m: any) => m.id),
      ['scripted'],
    );
    assert.equal(models.object, 'list');
    const missing = await fetch(`${base}/nope`);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  });

  test('bad JSON is a 400 OpenAI error', async () => {
    const res = await post('{not json');
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.error.type, 'invalid_request_error');
    assert.equal(typeof body.error.message, 'string');
    assert.equal(body.error.param, null);
    assert.equal(body.error.code, null);
  });

  test('records requests with body and headers; reset clears them', async () => {
    await complete('hi');
    assert.equal(engine.requests.length, 1);
    assert.equal(engine.requests[0].body.model, 'm1');
    assert.equal(engine.requests[0].headers['x-test'], 'yes');
    assert.ok(Math.abs(engine.requests[0].at - Date.now()) < 5000);
    engine.reset();
    assert.equal(engine.requests.length, 0);
  });
});

describe('default replies', () => {
  test('non-stream response shape and usage', async () => {
    const body = await post({
      model: 'my-model',
      messages: [
        { role: 'system', content: 'be nice' },
        { role: 'user', content: 'hello there friend' },
      ],
    }).then((r) => r.json());
    assert.match(body.id, /^chatcmpl-/);
    assert.equal(body.object, 'chat.completion');
    assert.equal(body.model, 'my-model');
    assert.equal(body.system_fingerprint, 'scripted');
    assert.equal(typeof body.created, 'number');
    assert.deepEqual(body.choices, [
      {
        index: 0,
        message: { role: 'assistant', content: 'Hello from the scripted engine.' },
        finish_reason: 'stop',
        logprobs: null,
      },
    ]);
    // 2 + 3 words, + 1 per message
    assert.deepEqual(body.usage, { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
  });

  test('tokenize keeps whitespace so chunks rebuild the text', () => {
    assert.deepEqual(tokenize('a b  c'), ['a ', 'b  ', 'c']);
    assert.deepEqual(tokenize(' x\ny'), [' x\n', 'y']);
    assert.deepEqual(tokenize(''), []);
  });

  test('[[echo]] replies with the user text minus markers; text parts count', async () => {
    const body = await complete([
      { type: 'text', text: 'say [[echo]] this back' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } },
      { type: 'text', text: 'please' },
    ]);
    assert.equal(body.choices[0].message.content, 'say this back\nplease');
    assert.equal(body.usage.completion_tokens, 4);
    assert.equal(body.usage.prompt_tokens, 6); // 5 words + 1 message
  });

  test('markers in earlier user messages are ignored', async () => {
    const res = await post({
      messages: [
        { role: 'user', content: '[[reply:old]]' },
        { role: 'assistant', content: 'old' },
        { role: 'user', content: 'new question' },
      ],
    });
    const body = await res.json();
    assert.equal(body.choices[0].message.content, 'Hello from the scripted engine.');
    assert.equal(body.model, 'scripted');
  });

  test('stream: role chunk, token chunks, final chunk, [DONE], no usage by default', async () => {
    const { chunks, content } = await stream('hi');
    assert.equal(content, 'Hello from the scripted engine.');
    assert.deepEqual(chunks[0].choices[0].delta, { role: 'assistant', content: '' });
    assert.deepEqual(
      chunks.slice(1, -1).map((c) => c.choices[0].delta.content),
      ['Hello ', 'from ', 'the ', 'scripted ', 'engine.'],
    );
    const last = chunks.at(-1);
    assert.deepEqual(last.choices, [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]);
    for (const c of chunks) {
      assert.equal(c.object, 'chat.completion.chunk');
      assert.equal(c.model, 'm1');
      assert.equal(c.system_fingerprint, 'scripted');
      assert.equal(c.id, chunks[0].id);
      assert.equal(c.usage, undefined);
    }
  });

  test('stream_options.include_usage adds a choices:[] usage chunk before [DONE]', async () => {
    const { chunks } = await stream('hi', { stream_options: { include_usage: true } });
    const last = chunks.at(-1);
    assert.deepEqual(last.choices, []);
    assert.deepEqual(last.usage, { prompt_tokens: 2, completion_tokens: 5, total_tokens: 7 });
    const off = await stream('hi', { stream_options: { include_usage: false } });
    assert.ok(off.chunks.every((c) => c.usage === undefined));
  });
});

describe('reply markers', () => {
  test('[[reply:TEXT]] streams back exactly TEXT', async () => {
    const text = 'Some **bold**  text\n\n- item `x`';
    const { chunks, content } = await stream(`[[reply:${text}]]`, { stream_options: { include_usage: true } });
    assert.equal(content, text);
    assert.equal(chunks.at(-1).usage.completion_tokens, 6);
    const body = await complete(`before [[reply:${text}]] after`);
    assert.equal(body.choices[0].message.content, text);
  });

  test('[[tokens:N]] gives exactly N tokens', async () => {
    const body = await complete('[[tokens:7]]');
    assert.equal(body.choices[0].message.content, 'w1 w2 w3 w4 w5 w6 w7');
    assert.equal(body.usage.completion_tokens, 7);
    const { chunks } = await stream('[[tokens:3]]');
    assert.deepEqual(
      chunks.slice(1, -1).map((c) => c.choices[0].delta.content),
      ['w1 ', 'w2 ', 'w3'],
    );
  });

  test('[[markdown]] and [[code]] canned answers', async () => {
    const md = (await complete('[[markdown]]')).choices[0].message.content;
    assert.match(md, /^## /m);
    assert.match(md, /\| --- \| --- \|/);
    assert.match(md, /^- /m);
    assert.ok(md.includes('$e^{i\\pi}+1=0$'));
    assert.match(md, /```ts\n[\s\S]+\n```/);
    const { content } = await stream('[[markdown]]');
    assert.equal(content, md);
    const code = (await complete('[[code]]')).choices[0].message.content;
    assert.match(code, /```python\ndef [\s\S]+\n```/);
  });

  test('[[json]] replies with a JSON object', async () => {
    const body = await complete('[[json]]', { response_format: { type: 'json_object' } });
    assert.deepEqual(JSON.parse(body.choices[0].message.content), { answer: 42 });
  });

  test('[[echo_request]] replies with the received messages in 40-char chunks', async () => {
    const messages = [
      { role: 'system', content: 'System prompt 😀 with emoji' },
      { role: 'user', content: 'file contents here, fairly long so it needs several chunks [[echo_request]]' },
    ];
    const res = await post({ messages, stream: true, stream_options: { include_usage: true } });
    const chunks = parseSse(await res.text()).slice(0, -1);
    const pieces = chunks.slice(1, -2).map((c) => c.choices[0].delta.content);
    assert.equal(pieces.join(''), JSON.stringify(messages));
    assert.ok(pieces.length > 2);
    assert.ok(pieces.every((p) => Array.from(p).length <= 40));
    assert.equal(chunks.at(-1).usage.completion_tokens, pieces.length);
    const body = await post({ messages }).then((r) => r.json());
    assert.deepEqual(JSON.parse(body.choices[0].message.content), messages);
    assert.equal(body.usage.completion_tokens, pieces.length);
  });

  test('[[think]] puts a <think> block first, tags split across chunks', async () => {
    const { chunks, content } = await stream('[[think]]');
    assert.match(content, /^<think>[^<]+<\/think>Hello from the scripted engine\.$/);
    const pieces = chunks.map((c) => c.choices[0].delta.content);
    assert.ok(pieces.includes('<thi') && pieces.includes('nk>'));
    assert.ok(!pieces.includes('<think>') && !pieces.includes('</think>'));
    const body = await complete('[[think]]');
    assert.equal(body.choices[0].message.content, content);
    assert.equal(body.usage.completion_tokens, pieces.filter((p) => p).length);
  });

  test('[[reasoning]] uses reasoning_content, streamed before content', async () => {
    const body = await complete('[[reasoning]]');
    const msg = body.choices[0].message;
    assert.equal(msg.content, 'Hello from the scripted engine.');
    const reasoningTokens = tokenize(msg.reasoning_content).length;
    assert.ok(reasoningTokens > 3);
    assert.equal(body.usage.completion_tokens_details.reasoning_tokens, reasoningTokens);
    assert.equal(body.usage.completion_tokens, reasoningTokens + 5);

    const { chunks, content } = await stream('[[reasoning]]', { stream_options: { include_usage: true } });
    assert.equal(content, 'Hello from the scripted engine.');
    const deltas = chunks.flatMap((c) => c.choices).map((c: any) => c.delta);
    const firstContent = deltas.findIndex((d) => d.content);
    const lastReasoning = deltas.findLastIndex((d) => d.reasoning_content);
    assert.ok(lastReasoning < firstContent);
    assert.equal(deltas.map((d) => d.reasoning_content ?? '').join(''), msg.reasoning_content);
    assert.equal(chunks.at(-1).usage.completion_tokens_details.reasoning_tokens, reasoningTokens);
  });
});

describe('tool calls', () => {
  const tools = ['get_weather', 'get_time', 'other'].map((name) => ({ type: 'function', function: { name, parameters: {} } }));

  test('[[tool:NAME:JSON]] non-stream', async () => {
    const body = await complete('weather? [[tool:get_weather:{"city":"Paris"}]]', { tools });
    const choice = body.choices[0];
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.equal(choice.message.content, null);
    assert.equal(choice.message.tool_calls.length, 1);
    const call = choice.message.tool_calls[0];
    assert.match(call.id, /^call_\d+$/);
    assert.equal(call.type, 'function');
    assert.deepEqual(call.function, { name: 'get_weather', arguments: '{"city":"Paris"}' });
  });

  test('[[tool:…]] stream sends OpenAI-style fragments', async () => {
    const { chunks } = await stream('[[tool:get_weather:{"city":"Paris","unit":"celsius"}]]', { tools });
    const frags = chunks.flatMap((c) => c.choices).flatMap((c: any) => c.delta.tool_calls ?? []);
    assert.deepEqual(frags[0], { index: 0, id: frags[0].id, type: 'function', function: { name: 'get_weather', arguments: '' } });
    assert.match(frags[0].id, /^call_\d+$/);
    const rest = frags.slice(1);
    assert.ok(rest.length >= 2);
    assert.ok(rest.every((f) => f.index === 0 && f.id === undefined && f.function.name === undefined));
    assert.equal(rest.map((f) => f.function.arguments).join(''), '{"city":"Paris","unit":"celsius"}');
    assert.equal(chunks.at(-1).choices[0].finish_reason, 'tool_calls');
  });

  test('[[tools2]] calls the first two request tools in parallel', async () => {
    const body = await complete('[[tools2]]', { tools });
    const calls = body.choices[0].message.tool_calls;
    assert.deepEqual(
      calls.map((c: any) => [c.function.name, c.function.arguments]),
      [
        ['get_weather', '{}'],
        ['get_time', '{}'],
      ],
    );
    assert.notEqual(calls[0].id, calls[1].id);
    const { chunks } = await stream('[[tools2]]', { tools });
    const frags = chunks.flatMap((c) => c.choices).flatMap((c: any) => c.delta.tool_calls ?? []);
    assert.deepEqual(
      frags.filter((f) => f.id).map((f) => [f.index, f.function.name]),
      [
        [0, 'get_weather'],
        [1, 'get_time'],
      ],
    );
    for (const i of [0, 1]) {
      assert.equal(
        frags
          .filter((f) => f.index === i)
          .map((f) => f.function.arguments)
          .join(''),
        '{}',
      );
    }
    const noTools = await post({ messages: user('[[tools2]]') });
    assert.equal(noTools.status, 400);
    await noTools.body?.cancel();
  });

  test('after a tool result the engine answers in text', async () => {
    const res = await post({
      tools,
      messages: [
        { role: 'user', content: '[[tool:get_weather:{}]]' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
    });
    const body = await res.json();
    assert.equal(body.choices[0].finish_reason, 'stop');
    assert.equal(body.choices[0].message.content, 'Hello from the scripted engine.');
  });
});

describe('timing markers', () => {
  test('[[slow:MS]] paces chunks; non-stream waits MS × tokens', async () => {
    let t = Date.now();
    await stream('[[slow:30]][[tokens:3]]');
    assert.ok(Date.now() - t >= 30 * 4, 'stream paced'); // 6 chunks → 5 gaps
    t = Date.now();
    await complete('[[slow:30]][[tokens:3]]');
    assert.ok(Date.now() - t >= 90, 'non-stream paced');
  });

  test('[[delay:MS]] delays the response headers', async () => {
    const t = Date.now();
    const res = await post({ messages: user('[[delay:120]]'), stream: true });
    assert.ok(Date.now() - t >= 110);
    await res.text();
  });

  test('[[hang]] never responds and counts the stream abort', async () => {
    const ac = new AbortController();
    const pending = post({ messages: user('[[hang]]'), stream: true }, { signal: ac.signal });
    await waitFor(() => engine.openStreams === 1);
    ac.abort();
    await assert.rejects(pending, { name: 'AbortError' });
    await waitFor(() => engine.abortedStreams === 1);
    assert.equal(engine.openStreams, 0);
    await assert.rejects(post({ messages: user('[[hang]]') }, { signal: AbortSignal.timeout(100) }), { name: 'TimeoutError' });
  });

  test('aborting a [[slow:50]] stream from the client counts in abortedStreams', async () => {
    const ac = new AbortController();
    const res = await post({ messages: user('[[slow:50]][[tokens:50]]'), stream: true }, { signal: ac.signal });
    const reader = res.body!.getReader();
    const first = await reader.read();
    assert.ok(new TextDecoder().decode(first.value).startsWith('data: '));
    assert.equal(engine.openStreams, 1);
    ac.abort();
    await waitFor(() => engine.abortedStreams === 1);
    assert.equal(engine.openStreams, 0);
    // a stream that completes normally is not counted
    await stream('hi');
    assert.equal(engine.abortedStreams, 1);
  });

  test('global delayMs option delays every chat request', async () => {
    const slow = await startScriptedEngine({ delayMs: 80, name: 'slow' });
    try {
      const t = Date.now();
      const res = await fetch(`${slow.url}/chat/completions`, { method: 'POST', body: JSON.stringify({ messages: user('hi') }) });
      assert.ok(Date.now() - t >= 75);
      assert.equal(res.headers.get('x-replica'), 'slow');
      assert.equal((await res.json()).choices[0].message.content, 'Hello from the scripted engine.');
    } finally {
      await slow.close();
    }
  });
});

describe('failure markers', () => {
  test('[[fail_mid]] stream: 3 chunks then the socket dies without [DONE]', async () => {
    const res = await post({ messages: user('[[fail_mid]]'), stream: true });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    await assert.rejects(async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
    });
    const events = parseSse(text);
    assert.ok(!events.includes('[DONE]'));
    assert.deepEqual(
      events.slice(1).map((e) => e.choices[0].delta.content),
      ['Hello ', 'from ', 'the '],
    );
    assert.equal(engine.abortedStreams, 0);
    await waitFor(() => engine.openStreams === 0);
  });

  test('[[fail_mid]] non-stream: socket destroyed without a response', async () => {
    await assert.rejects(post({ messages: user('[[fail_mid]]') }));
  });

  test('[[error_mid]] sends an in-band error event then [DONE]', async () => {
    const res = await post({ messages: user('[[error_mid]]'), stream: true });
    const events = parseSse(await res.text());
    assert.equal(events.length, 6);
    assert.deepEqual(
      events.slice(1, 4).map((e) => e.choices[0].delta.content),
      ['Hello ', 'from ', 'the '],
    );
    assert.deepEqual(events[4], { error: { message: 'upstream exploded', type: 'server_error' } });
    assert.equal(events[5], '[DONE]');
  });

  test('[[status:CODE]] responds with that status and an OpenAI error', async () => {
    for (const [code, type] of [
      [401, 'authentication_error'],
      [429, 'rate_limit_error'],
      [500, 'server_error'],
      [503, 'server_error'],
    ] as const) {
      for (const streamFlag of [false, true]) {
        const res = await post({ messages: user(`[[status:${code}]]`), stream: streamFlag });
        assert.equal(res.status, code);
        const body = await res.json();
        assert.equal(body.error.message, `scripted status ${code}`);
        assert.equal(body.error.type, type);
        assert.ok('param' in body.error && 'code' in body.error);
      }
    }
    const bad = await post({ messages: user('[[status:400]]') });
    assert.equal(bad.status, 400);
    const body = await bad.json();
    assert.match(body.error.message, /scripted bad request/);
    assert.equal(body.error.type, 'invalid_request_error');
    assert.equal(engine.openStreams, 0);
  });

  test('[[context]] responds 400 context_length_exceeded', async () => {
    const res = await post({ messages: user('[[context]]'), stream: true });
    assert.equal(res.status, 400);
    const { error } = await res.json();
    assert.match(error.message, /^This model's maximum context length is 4096 tokens/);
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(error.param, 'messages');
    assert.equal(error.code, 'context_length_exceeded');
  });
});

describe('parameters', () => {
  test('[[cached:N]] reports cached prompt tokens', async () => {
    const body = await complete('[[cached:12]]');
    assert.deepEqual(body.usage.prompt_tokens_details, { cached_tokens: 12 });
    const { chunks } = await stream('[[cached:3]]', { stream_options: { include_usage: true } });
    assert.deepEqual(chunks.at(-1).usage.prompt_tokens_details, { cached_tokens: 3 });
  });

  test('n choices; streams interleave by index', async () => {
    const body = await complete('[[tokens:2]]', { n: 2 });
    assert.deepEqual(
      body.choices.map((c: any) => [c.index, c.message.content]),
      [
        [0, 'w1 w2'],
        [1, 'w1 w2'],
      ],
    );
    assert.equal(body.usage.completion_tokens, 4);
    const { chunks } = await stream('[[tokens:2]]', { n: 2 });
    const order = chunks.map((c) => c.choices[0].index);
    assert.deepEqual(order, [0, 1, 0, 1, 0, 1, 0, 1]);
    assert.deepEqual(
      chunks.filter((c) => c.choices[0].delta.role).map((c) => c.choices[0].index),
      [0, 1],
    );
    assert.deepEqual(
      chunks.slice(-2).map((c) => c.choices[0].finish_reason),
      ['stop', 'stop'],
    );
  });

  test('max_tokens / max_completion_tokens cut with finish_reason length', async () => {
    const a = await complete('[[tokens:10]]', { max_tokens: 4 });
    assert.equal(a.choices[0].message.content, 'w1 w2 w3 w4 ');
    assert.equal(a.choices[0].finish_reason, 'length');
    assert.equal(a.usage.completion_tokens, 4);
    const b = await complete('[[tokens:10]]', { max_completion_tokens: 2 });
    assert.equal(b.choices[0].finish_reason, 'length');
    assert.equal(b.usage.completion_tokens, 2);
    const { chunks, content } = await stream('[[tokens:10]]', { max_tokens: 3 });
    assert.equal(content, 'w1 w2 w3 ');
    assert.equal(chunks.at(-1).choices[0].finish_reason, 'length');
    const fits = await complete('[[tokens:3]]', { max_tokens: 3 });
    assert.equal(fits.choices[0].finish_reason, 'stop');
  });

  test('stop strings cut before the first occurrence', async () => {
    const a = await complete('[[reply:one two three four]]', { stop: 'three' });
    assert.equal(a.choices[0].message.content, 'one two ');
    assert.equal(a.choices[0].finish_reason, 'stop');
    assert.equal(a.usage.completion_tokens, 2);
    const b = await complete('[[reply:one two three four]]', { stop: ['four', 'wo'] });
    assert.equal(b.choices[0].message.content, 'one t');
    const { content } = await stream('[[reply:one two three four]]', { stop: ['ee'] });
    assert.equal(content, 'one two thr');
    const c = await complete('[[reply:one two three four]]', { stop: 'four', max_tokens: 2 });
    assert.equal(c.choices[0].finish_reason, 'length');
  });

  test('logprobs and top_logprobs', async () => {
    const body = await complete('[[tokens:3]]', { logprobs: true, top_logprobs: 2 });
    const content = body.choices[0].logprobs.content;
    assert.deepEqual(
      content.map((e: any) => [e.token, e.logprob]),
      [
        ['w1 ', -0.1],
        ['w2 ', -0.2],
        ['w3', -0.3],
      ],
    );
    assert.deepEqual(content[0].bytes, [...Buffer.from('w1 ')]);
    assert.equal(content[1].top_logprobs.length, 2);
    assert.deepEqual(content[1].top_logprobs[0], { token: 'w2 ', logprob: -0.2, bytes: [...Buffer.from('w2 ')] });
    assert.ok(content[1].top_logprobs[1].logprob < -0.2);
    const plain = await complete('[[tokens:3]]', { logprobs: true });
    assert.deepEqual(plain.choices[0].logprobs.content[2].top_logprobs, []);

    const { chunks } = await stream('[[tokens:3]]', { logprobs: true, top_logprobs: 1 });
    const lps = chunks.map((c) => c.choices[0].logprobs);
    assert.equal(lps[0], null);
    assert.equal(lps.at(-1), null);
    assert.deepEqual(
      lps.slice(1, -1).map((l) => [l.content[0].token, l.content[0].logprob, l.content[0].top_logprobs.length]),
      [
        ['w1 ', -0.1, 1],
        ['w2 ', -0.2, 1],
        ['w3', -0.3, 1],
      ],
    );
  });

  test('seed is ignored', async () => {
    const a = await complete('hi', { seed: 1 });
    const b = await complete('hi', { seed: 2 });
    assert.equal(a.choices[0].message.content, b.choices[0].message.content);
  });
});

test('CLI prints the URL and serves until killed', async () => {
  const child = spawn(process.execPath, [new URL('./scripted-engine.ts', import.meta.url).pathname, '--port', '0', '--delay-ms', '5'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [line] = await once(child.stdout!, 'data');
    const url = String(line).trim();
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const res = await fetch(`${url}/chat/completions`, { method: 'POST', body: JSON.stringify({ messages: user('[[echo]] ping') }) });
    assert.equal((await res.json()).choices[0].message.content, 'ping');
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLlamaEngine } from './llama.ts';
import { DEMO_PUNCTUATION, DEMO_WORDS, writeDemoGguf } from './llama/demo-model.ts';
import { EngineError, type Engine, type EngineChunk, type EngineMessage, type EngineParams, type EngineRequest } from './types.ts';

const MESSAGES: EngineMessage[] = [
  { role: 'system', content: 'You are a storyteller.' },
  { role: 'user', content: 'Tell me a story about a fox.' },
];

function request(params: Partial<EngineParams>, signal = new AbortController().signal, messages = MESSAGES): EngineRequest {
  return { requestId: 'test', model: 'demo', messages, params: { n: 1, max_tokens: 60, ...params }, signal };
}

/** The words and punctuation marks of a demo model output, checking nothing else is in it. */
function pieces(text: string): string[] {
  const found = text.match(/[A-Za-z]+|[.,!?]/g) ?? [];
  assert.equal(
    text
      .replace(/[A-Za-z]+|[.,!?]/g, '')
      .trim()
      .replace(/ /g, ''),
    '',
    `unexpected characters in ${JSON.stringify(text)}`,
  );
  return found;
}

async function collect(stream: AsyncIterable<EngineChunk>): Promise<EngineChunk[]> {
  const chunks: EngineChunk[] = [];
  for await (const c of stream) chunks.push(c);
  return chunks;
}

const contentOf = (chunks: EngineChunk[], index = 0) =>
  chunks.flatMap((c) => c.choices.filter((ch) => ch.index === index).map((ch) => ch.delta.content ?? '')).join('');

describe('llama engine on the demo model', () => {
  let dir: string;
  let modelPath: string;
  let engine: Engine;
  const vocabulary = new Set([...DEMO_WORDS, ...DEMO_PUNCTUATION]);

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'lagoon-llama-'));
    modelPath = path.join(dir, 'demo.gguf');
    await writeDemoGguf(modelPath);
    engine = createLlamaEngine({ path: modelPath });
  });

  after(async () => {
    await engine.close?.();
    await rm(dir, { recursive: true, force: true });
  });

  /** A seed whose (temperature 1) answer runs at least `min` tokens, found by trying seeds in order. */
  async function longSeed(min: number): Promise<number> {
    for (let seed = 1; seed < 100; seed++) {
      const r = await engine.complete(request({ seed, max_tokens: min }));
      if (r.choices[0].finish_reason === 'length') return seed;
    }
    throw new Error(`no seed gives ${min} tokens`);
  }

  test('router names the file', () => {
    assert.equal(engine.router, 'llama:demo.gguf');
  });

  test('complete returns readable vocabulary words with exact usage', async () => {
    const r = await engine.complete(request({ seed: 7, max_tokens: 200 }));
    assert.equal(r.choices.length, 1);
    const choice = r.choices[0];
    assert.equal(choice.message.role, 'assistant');
    const text = choice.message.content ?? '';
    const words = pieces(text);
    assert.ok(words.length >= 3, `too short: ${text}`);
    for (const w of words) assert.ok(vocabulary.has(w), `${w} is not a demo word`);
    assert.match(text, /^[A-Z]/, 'starts a sentence');
    assert.equal(choice.finish_reason, 'stop');
    assert.match(text, /[.!?]$/, 'ends a sentence before </s>');
    // One token per word or mark, plus the end-of-sequence token.
    assert.equal(r.usage?.completion_tokens, words.length + 1);
    assert.equal(r.usage?.prompt_tokens, await engine.countTokens!(MESSAGES));
  });

  test('the same seed gives the same text', async () => {
    const a = await engine.complete(request({ seed: 11 }));
    const b = await engine.complete(request({ seed: 11 }));
    assert.equal(a.choices[0].message.content, b.choices[0].message.content);
  });

  test('stream yields incremental chunks, then finish_reason and exact usage', async () => {
    const seed = await longSeed(12);
    const chunks = await collect(engine.stream(request({ seed, max_tokens: 40 })));
    assert.deepEqual(chunks[0].choices[0].delta, { role: 'assistant', content: '' });
    const contentChunks = chunks.filter((c) => c.choices[0]?.delta.content);
    assert.ok(contentChunks.length >= 12, `only ${contentChunks.length} content chunks`);
    const last = chunks.at(-1)!;
    assert.ok(last.choices[0].finish_reason === 'stop' || last.choices[0].finish_reason === 'length');
    assert.ok(chunks.slice(0, -1).every((c) => c.usage === undefined && c.choices[0].finish_reason === null));
    const words = pieces(contentOf(chunks));
    const eos = last.choices[0].finish_reason === 'stop' ? 1 : 0;
    assert.equal(last.usage?.completion_tokens, words.length + eos);
    assert.equal(last.usage?.prompt_tokens, await engine.countTokens!(MESSAGES));
  });

  test('max_tokens ends with length and exactly max_tokens completion tokens', async () => {
    const seed = await longSeed(10);
    const r = await engine.complete(request({ seed, max_tokens: 5 }));
    assert.equal(r.choices[0].finish_reason, 'length');
    assert.equal(r.usage?.completion_tokens, 5);
    assert.equal(pieces(r.choices[0].message.content ?? '').length, 5);
  });

  test('a stop string ends the output before it', async () => {
    const seed = await longSeed(30);
    const full = (await engine.complete(request({ seed, max_tokens: 30 }))).choices[0].message.content ?? '';
    const words = full.split(' ');
    const stop = ` ${words[6]}`; // a word that also occurs earlier still stops at its first occurrence
    const expected = full.slice(0, full.indexOf(stop));
    const r = await engine.complete(request({ seed, max_tokens: 30, stop: [stop] }));
    assert.equal(r.choices[0].message.content, expected);
    assert.equal(r.choices[0].finish_reason, 'stop');
    const streamed = await collect(engine.stream(request({ seed, max_tokens: 30, stop: [stop] })));
    assert.equal(contentOf(streamed), expected);
  });

  test('an abort mid-stream ends it with the partial usage', async () => {
    const seed = await longSeed(40);
    const ac = new AbortController();
    const chunks: EngineChunk[] = [];
    for await (const c of engine.stream(request({ seed, max_tokens: 40 }, ac.signal))) {
      chunks.push(c);
      if (c.choices[0]?.delta.content) ac.abort();
    }
    const last = chunks.at(-1)!;
    assert.equal(last.choices[0].finish_reason, 'stop');
    const generated = pieces(contentOf(chunks)).length;
    assert.ok(generated >= 1 && generated < 40, `generated ${generated}`);
    assert.equal(last.usage?.completion_tokens, generated);
    assert.equal(last.usage?.prompt_tokens, await engine.countTokens!(MESSAGES));
  });

  test('an already aborted request throws the abort reason', async () => {
    const ac = new AbortController();
    ac.abort(new Error('client went away'));
    await assert.rejects(engine.complete(request({}, ac.signal)), /client went away/);
  });

  test('n=2 gives two different choices and sums their usage', async () => {
    const r = await engine.complete(request({ seed: 3, n: 2, max_tokens: 30 }));
    assert.deepEqual(
      r.choices.map((c) => c.index),
      [0, 1],
    );
    const texts = r.choices.map((c) => c.message.content ?? '');
    assert.notEqual(texts[0], texts[1]);
    const tokens = r.choices.map((c, i) => pieces(texts[i]).length + (c.finish_reason === 'stop' ? 1 : 0));
    assert.equal(r.usage?.completion_tokens, tokens[0] + tokens[1]);
    // Choice i uses seed + i, so choice 1 is what seed 4 gives alone.
    const alone = await engine.complete(request({ seed: 4, max_tokens: 30 }));
    assert.equal(texts[1], alone.choices[0].message.content);
  });

  test('a repeated prompt is served from the cache', async () => {
    await engine.complete(request({ seed: 1, max_tokens: 3 }));
    const r = await engine.complete(request({ seed: 2, max_tokens: 3 }));
    assert.equal(r.usage?.cached_tokens, r.usage!.prompt_tokens - 1);
  });

  test('logprobs cover each generated token', async () => {
    const r = await engine.complete(request({ seed: 5, max_tokens: 8, logprobs: true, top_logprobs: 3 }));
    const content = r.choices[0].logprobs?.content ?? [];
    assert.equal(content.map((l) => l.token).join(''), r.choices[0].message.content);
    for (const l of content) {
      assert.ok(l.logprob <= 0);
      assert.equal(l.top_logprobs?.length, 3);
      assert.ok(l.top_logprobs![0].logprob >= l.top_logprobs![2].logprob);
    }
  });

  test('prompt + max_tokens beyond the context is a context_length error', async () => {
    await assert.rejects(engine.complete(request({ max_tokens: 100_000 })), (err: unknown) => err instanceof EngineError && err.kind === 'context_length');
  });

  test('countTokens counts the templated prompt', async () => {
    const one = await engine.countTokens!([{ role: 'user', content: 'hello' }]);
    const two = await engine.countTokens!([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'The fox sleeps.' },
      { role: 'user', content: 'hello' },
    ]);
    assert.ok(one! > 0);
    assert.ok(two! > one! + 4);
  });

  // Issue 11: the tokenizer is synchronous native code (about 0.2 s per MB); a large prompt is tokenized in slices.
  test('a large prompt is counted in slices: the event loop keeps turning, the count matches a whole tokenization', async () => {
    const words = 'the quick brown fox jumps over the lazy dog\n';
    const big = words.repeat(Math.ceil((2 * 1024 * 1024) / words.length));
    const whole = (await engine.countTokens!([{ role: 'user', content: words.repeat(2) }]))!;
    let worst = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 5);
    const t0 = performance.now();
    const counted = (await engine.countTokens!([{ role: 'user', content: big }]))!;
    const took = performance.now() - t0;
    clearInterval(ticker);
    // Each slice of the repeated line tokenizes as the line does: the count is the whole prompt's, within a token
    // or two per slice boundary.
    const perLine = (await engine.countTokens!([{ role: 'user', content: words.repeat(3) }]))! - whole;
    const expected = whole + perLine * (big.length / words.length - 2);
    assert.ok(Math.abs(counted - expected) <= Math.ceil(big.length / 32_768) * 2, `counted ${counted}, expected about ${expected}`);
    // Far less than the whole tokenization's time between two turns of the loop (generous for a loaded machine).
    assert.ok(worst < Math.max(150, took / 4), `the loop stalled ${worst.toFixed(0)} ms (counting took ${took.toFixed(0)} ms)`);
  });

  test('countTokens with a limit stops once past it; a prompt beyond the context is refused before it is tokenized whole', async () => {
    const big = 'the quick brown fox jumps over the lazy dog\n'.repeat(200_000); // 8.8 MB, about 2 M tokens
    const t0 = performance.now();
    const counted = (await engine.countTokens!([{ role: 'user', content: big }], { limit: 4096 }))!;
    assert.ok(counted > 4096 && counted < 4096 + 40_000, `counted ${counted}`);
    await assert.rejects(
      engine.complete(request({ max_tokens: 10 }, undefined, [{ role: 'user', content: big }])),
      (err: unknown) => err instanceof EngineError && err.kind === 'context_length' && /more than/.test(err.message),
    );
    // A whole tokenization of 8.8 MB takes seconds; stopping at the limit takes a small part of that.
    assert.ok(performance.now() - t0 < 1500, `took ${(performance.now() - t0).toFixed(0)} ms`);
  });

  test('a model that cannot be loaded fails every request with failed', async () => {
    const missing = createLlamaEngine({ path: path.join(dir, 'missing.gguf') });
    for (let attempt = 0; attempt < 2; attempt++) {
      await assert.rejects(
        missing.complete(request({})),
        (err: unknown) => err instanceof EngineError && err.kind === 'failed' && /missing\.gguf|load/.test(err.message),
      );
    }
    await missing.close?.();
  });

  test('seqs sequences serve requests at the same time', async () => {
    const two = createLlamaEngine({ path: modelPath, seqs: 2, maxQueue: 0 });
    try {
      const busy = new AbortController();
      const streams = [1, 2].map((seed) => two.stream(request({ seed, n: 50, max_tokens: 50 }, busy.signal))[Symbol.asyncIterator]());
      // Both generate at once (with one sequence and no queue the second would be refused); a third is refused.
      for (const s of streams) {
        while (!(await s.next()).value?.choices[0]?.delta.content);
      }
      await assert.rejects(two.complete(request({ seed: 3 })), (err: unknown) => err instanceof EngineError && err.kind === 'capacity');
      busy.abort();
      for (const s of streams) while (!(await s.next()).done);
      const r = await two.complete(request({ seed: 3, max_tokens: 5 }));
      assert.ok((r.usage?.completion_tokens ?? 0) > 0);
    } finally {
      await two.close?.();
    }
  });

  test('a full queue refuses with capacity; an aborted waiter leaves the queue', async () => {
    const small = createLlamaEngine({ path: modelPath, seqs: 1, maxQueue: 1, contextSize: 512 });
    try {
      const busy = new AbortController();
      // n=50 keeps the only sequence busy until aborted.
      const running = small.stream(request({ seed: 1, n: 50, max_tokens: 50 }, busy.signal))[Symbol.asyncIterator]();
      await running.next();
      const waiterAc = new AbortController();
      const waiter = small.complete(request({ seed: 2 }, waiterAc.signal));
      await new Promise((r) => setTimeout(r, 20));
      await assert.rejects(small.complete(request({ seed: 3 })), (err: unknown) => err instanceof EngineError && err.kind === 'capacity');
      waiterAc.abort(new Error('waiter gave up'));
      await assert.rejects(waiter, /waiter gave up/);
      // The queue has room again: this one waits, then runs once the busy stream is aborted.
      const next = small.complete(request({ seed: 4, max_tokens: 5 }));
      busy.abort();
      while (!(await running.next()).done);
      const r = await next;
      assert.ok((r.usage?.completion_tokens ?? 0) > 0);
      // The small engine's context is 512 tokens.
      await assert.rejects(small.complete(request({ max_tokens: 600 })), (err: unknown) => err instanceof EngineError && err.kind === 'context_length');
    } finally {
      await small.close?.();
    }
    await assert.rejects(small.complete(request({})), (err: unknown) => err instanceof EngineError && err.kind === 'failed');
  });

  test('a waiter not given a sequence within queueTimeoutMs is refused with capacity, and leaves the queue', async () => {
    const small = createLlamaEngine({ path: modelPath, seqs: 1, maxQueue: 1, queueTimeoutMs: 100, contextSize: 512 });
    try {
      const busy = new AbortController();
      const running = small.stream(request({ seed: 1, n: 50, max_tokens: 50 }, busy.signal))[Symbol.asyncIterator]();
      await running.next();
      const started = Date.now();
      await assert.rejects(small.complete(request({ seed: 2 })), (err: unknown) => err instanceof EngineError && err.kind === 'capacity');
      assert.ok(Date.now() - started < 2000, `refused after ${Date.now() - started} ms`);
      // The queue (of one) is free again: this one is queued rather than refused at once.
      const next = small.complete(request({ seed: 4, max_tokens: 5 }));
      busy.abort();
      while (!(await running.next()).done);
      assert.ok(((await next).usage?.completion_tokens ?? 0) > 0);
    } finally {
      await small.close?.();
    }
  });
});

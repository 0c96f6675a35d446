// Embeddings on the real llama.cpp engine with the demo GGUF Lagoon writes: unit vectors of the model's width,
// deterministic per text, in input order, exact token usage, and over-long inputs refused by index.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLlamaEngine } from './llama.ts';
import { writeDemoGguf } from './llama/demo-model.ts';
import { EngineError, type Engine } from './types.ts';

describe('llama engine embeddings on the demo model', () => {
  let dir: string;
  let engine: Engine;
  const opts = () => ({ requestId: 't', model: 'demo', signal: new AbortController().signal });

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'lagoon-embed-'));
    const file = path.join(dir, 'demo.gguf');
    await writeDemoGguf(file);
    engine = createLlamaEngine({ path: file, contextSize: 128 });
  });
  after(async () => {
    await engine?.close?.();
    await rm(dir, { recursive: true, force: true });
  });

  test('unit vectors of the model width; the same text gives the same vector, another text another', async () => {
    const r = await engine.embed!(['the fox ran home', 'a story about the sea', 'the fox ran home'], opts());
    assert.equal(r.vectors.length, 3);
    for (const v of r.vectors) {
      assert.equal(v.length, 64);
      assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-9, 'L2-normalised');
    }
    assert.deepEqual(r.vectors[0], r.vectors[2]);
    assert.notDeepEqual(r.vectors[0], r.vectors[1]);
    const again = await engine.embed!(['a story about the sea'], opts());
    assert.deepEqual(again.vectors[0], r.vectors[1], 'deterministic across requests');
    assert.ok(r.promptTokens! > 3 && again.promptTokens! < r.promptTokens!, 'usage counts the tokens of every input');
  });

  test('an input longer than the context is refused before anything runs, naming its index', async () => {
    await assert.rejects(engine.embed!(['short', 'fox '.repeat(400)], opts()), (e: unknown) => {
      assert.ok(e instanceof EngineError);
      assert.equal(e.kind, 'context_length');
      assert.match(e.message, /^Input 1 has \d+ tokens; this model embeds at most 128 tokens per input\.$/);
      return true;
    });
  });

  test('concurrent requests each get their own vectors', async () => {
    const texts = ['one', 'two words', 'three little words', 'and four more words'];
    const results = await Promise.all(texts.map((t) => engine.embed!([t], opts())));
    const serial = await engine.embed!(texts, opts());
    results.forEach((r, i) => assert.deepEqual(r.vectors[0], serial.vectors[i]));
  });

  test('a request that waits past queueTimeoutMs, or whose client leaves, gives up its turn; the rest run in order', async () => {
    const bounded = createLlamaEngine({ path: path.join(dir, 'demo.gguf'), contextSize: 128, queueTimeoutMs: 5 });
    try {
      await bounded.embed!(['warm up'], opts()); // loads the embedding context
      const long = bounded.embed!(
        Array.from({ length: 200 }, (_, i) => `text number ${i} about the sea`),
        opts(),
      );
      const late = bounded.embed!(['late'], opts());
      const ac = new AbortController();
      const left = bounded.embed!(['left'], { ...opts(), signal: ac.signal });
      ac.abort(new Error('client left'));
      await assert.rejects(left, /client left/);
      await assert.rejects(late, (e: unknown) => e instanceof EngineError && e.kind === 'capacity');
      assert.equal((await long).vectors.length, 200);
      assert.equal((await bounded.embed!(['after'], opts())).vectors.length, 1);
    } finally {
      await bounded.close?.();
    }
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getLlama, resolveChatWrapper } from 'node-llama-cpp';
import { buildDemoGguf, DEMO_PUNCTUATION, DEMO_WORDS, ensureDemoGguf, writeDemoGguf } from './demo-model.ts';

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lagoon-demo-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('the file is deterministic for a seed and small', () => {
  const a = buildDemoGguf();
  assert.ok(a.equals(buildDemoGguf({ seed: 1 })));
  assert.ok(!a.equals(buildDemoGguf({ seed: 2 })));
  assert.ok(a.length < 2_000_000, `${a.length} bytes`);
});

test('ensureDemoGguf writes only when missing, leaving no temp files', async () => {
  await withTempDir(async (dir) => {
    const file = path.join(dir, 'models', 'demo.gguf');
    assert.equal(await ensureDemoGguf(file), true);
    assert.ok((await readFile(file)).equals(buildDemoGguf()));
    const before = (await stat(file)).mtimeMs;
    assert.equal(await ensureDemoGguf(file), false);
    assert.equal((await stat(file)).mtimeMs, before);
    assert.deepEqual(await readdir(path.dirname(file)), ['demo.gguf']);
  });
});

test('writeDemoGguf replaces an existing file', async () => {
  await withTempDir(async (dir) => {
    const file = path.join(dir, 'demo.gguf');
    await writeFile(file, 'old');
    await writeDemoGguf(file, { seed: 3 });
    assert.ok((await readFile(file)).equals(buildDemoGguf({ seed: 3 })));
    assert.deepEqual(await readdir(dir), ['demo.gguf']);
  });
});

test('every demo word is one token and the chat template uses the role control tokens', async () => {
  assert.equal(new Set(DEMO_WORDS).size, DEMO_WORDS.length, 'no word is in two classes');
  assert.ok(DEMO_WORDS.length >= 200);
  await withTempDir(async (dir) => {
    const file = path.join(dir, 'demo.gguf');
    await writeDemoGguf(file);
    const llama = await getLlama({ gpu: false, build: 'never' });
    const model = await llama.loadModel({ modelPath: file });
    try {
      for (const word of DEMO_WORDS) {
        const tokens = model.tokenize(` ${word}`, false, 'trimLeadingSpace');
        assert.equal(tokens.length, 1, `${word} → ${tokens.length} tokens`);
        assert.equal(model.detokenize(tokens, false, model.tokenize('x')), ` ${word}`);
      }
      for (const mark of DEMO_PUNCTUATION) assert.equal(model.tokenize(mark, false, 'trimLeadingSpace').length, 1);
      assert.equal(model.tokenize('<|user|>', true).length, 1);
      const wrapper = resolveChatWrapper(model, { type: 'jinjaTemplate', warningLogs: false });
      assert.equal(wrapper.wrapperName, 'JinjaTemplate');
      const state = wrapper.generateContextState({
        chatHistory: [
          { type: 'system', text: 'Be brief.' },
          { type: 'user', text: 'hi' },
          { type: 'model', response: [] },
        ],
      });
      assert.equal(state.contextText.toString(), '<|system|>Be brief.</s><|user|>hi</s><|assistant|>');
      assert.equal(model.tokens.eosString, '</s>');
    } finally {
      await model.dispose();
    }
  });
});

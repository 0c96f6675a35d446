// The demo model's size option (the llama benchmark's mid-size model): wider feed-forward layers grow the file by a
// known amount, the model still loads and speaks the demo grammar, and make-demo-gguf's --size-mb hits its target.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { getLlama, type Token } from 'node-llama-cpp';
import { buildDemoGguf, DEMO_PUNCTUATION, DEMO_WORDS, writeDemoGguf } from './demo-model.ts';

const run = promisify(execFile);
const script = path.resolve(import.meta.dirname, '../../../../scripts/make-demo-gguf.ts');

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lagoon-demo-size-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('ffnLength grows the file by 1,536 bytes per unit and keeps it deterministic', () => {
  const base = buildDemoGguf();
  const wide = buildDemoGguf({ ffnLength: 1128 });
  assert.equal(wide.length - base.length, 1000 * 1536);
  assert.ok(wide.equals(buildDemoGguf({ ffnLength: 1128, seed: 1 })));
});

test('a wide model loads and generates only demo words and punctuation', async () => {
  await withTempDir(async (dir) => {
    const file = path.join(dir, 'wide.gguf');
    await writeDemoGguf(file, { ffnLength: 4096 });
    const llama = await getLlama({ gpu: false, build: 'never' });
    const model = await llama.loadModel({ modelPath: file });
    try {
      const context = await model.createContext({ contextSize: 256 });
      const seq = context.getSequence();
      const prompt = model.tokenize(`${DEMO_WORDS.slice(0, 6).join(' ')}.`);
      const out: Token[] = [];
      for await (const t of seq.evaluate(prompt, { temperature: 1, seed: 7 })) {
        if (model.isEogToken(t) || out.length >= 40) break;
        out.push(t);
      }
      assert.ok(out.length > 0);
      const allowed = new Set([...DEMO_WORDS, ...DEMO_PUNCTUATION]);
      for (const t of out) {
        const piece = model.detokenize([t]).trim();
        assert.ok(allowed.has(piece), `unexpected piece ${JSON.stringify(piece)}`);
      }
      await context.dispose();
    } finally {
      await model.dispose();
    }
  });
});

test('make-demo-gguf --size-mb writes a file of about that size and refuses a bad size', async () => {
  await withTempDir(async (dir) => {
    const file = path.join(dir, 'five.gguf');
    await run(process.execPath, [script, file, '--size-mb', '5']);
    const { size } = await stat(file);
    assert.ok(Math.abs(size - 5e6) < 1536, `${size} bytes`);
    await assert.rejects(run(process.execPath, [script, file, '--size-mb', 'lots']), (e: { code?: number; stderr?: string }) => {
      assert.equal(e.code, 2);
      assert.match(e.stderr ?? '', /--size-mb must be/);
      return true;
    });
  });
});

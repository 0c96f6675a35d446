// The catalogue files an operator writes (issue 20): a bad one stops the server with one paragraph naming the file,
// the field and the problem (never a stack trace); the short extra file ADDS models to the default catalogue instead
// of replacing it; a baseUrl with or without /v1 works.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { CatalogueError } from '../../lib/models/catalogue-error.ts';
import { DEFAULT_CATALOGUE, loadCatalogue, normaliseBaseUrl } from '../../lib/models/catalogue.ts';
import { scriptedModel } from '../support/harness.ts';

const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-catalogue-file-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (name: string, content: unknown) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
};

const vars = (name: string) => (name === 'LAGOON_DATA_DIR' ? dir : undefined);

/** Runs scripts/serve.ts, which must exit; its status and what it printed to stderr. */
async function serveExits(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  try {
    await run(process.execPath, ['scripts/serve.ts'], {
      env: { ...process.env, LAGOON_DATA_DIR: path.join(dir, 'data'), LAGOON_NO_APP: '1', PORT: '0', HOST: '127.0.0.1', ...env },
      timeout: 60_000,
    });
  } catch (e) {
    const err = e as { code: number; stderr: string };
    return { code: err.code, stderr: err.stderr };
  }
  assert.fail('the server started with a bad catalogue');
}

describe('a bad catalogue file stops the server with the file and the field named', () => {
  test('an invalid field: exit 1, one paragraph, no stack trace', async () => {
    const bad = scriptedModel('broken-model', 'not a url');
    const file = write('bad-field.json', { models: [scriptedModel('fine', 'http://127.0.0.1:9/v1'), bad] });
    const { code, stderr } = await serveExits({ LAGOON_MODELS: file });
    assert.equal(code, 1);
    const text = stderr.trim();
    assert.match(text, new RegExp(`^lagoon: The model catalogue ${file.replaceAll('/', '\\/')} is invalid: `));
    assert.match(text, /models\[1\] \("broken-model"\)\.engine\.baseUrl: /);
    assert.match(text, /Fix the file and start again\.$/);
    assert.equal(text.split('\n').length, 1, `one paragraph:\n${text}`);
    assert.doesNotMatch(text, /\n\s+at /);
  });

  test('a file that is not JSON, and a file that does not exist, are named', async () => {
    const file = write('not-json.json', '{ "models": [ ');
    const notJson = await serveExits({ LAGOON_MODELS: file });
    assert.equal(notJson.code, 1);
    assert.match(notJson.stderr, new RegExp(`${path.basename(file)} is invalid: it is not valid JSON`));
    const missing = await serveExits({ LAGOON_MODELS: path.join(dir, 'nope.json') });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /nope\.json is invalid: the file does not exist/);
  });

  test('an extra file with a bad field names the extra file and its own field path', async () => {
    const extra = write('bad-extra.json', { models: [{ ...scriptedModel('added', 'http://127.0.0.1:9/v1'), tier: 'XXL' }] });
    const { code, stderr } = await serveExits({ LAGOON_MODELS_EXTRA: extra });
    assert.equal(code, 1);
    assert.match(stderr, new RegExp(`${path.basename(extra)} is invalid: models\\[0\\] \\("added"\\)\\.tier: `));
  });

  test('an audio model on the wrong engine: exit 1 naming the file, the field and the model, no stack trace', async () => {
    const tts = {
      ...scriptedModel('speaker', 'http://127.0.0.1:9/v1'),
      type: 'tts',
      pricing: { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0, per_1k_characters_usd: 1 },
    };
    const file = write('audio-engine.json', { models: [scriptedModel('fine', 'http://127.0.0.1:9/v1'), tts] });
    const { code, stderr } = await serveExits({ LAGOON_MODELS: file });
    assert.equal(code, 1);
    const text = stderr.trim();
    assert.match(text, new RegExp(`^lagoon: The model catalogue ${file.replaceAll('/', '\\/')} is invalid: `));
    assert.match(text, /models\[1\] \("speaker"\)\.engine: model "speaker" \(tts\) needs an engine of kind flite or openai-audio, not openai/);
    assert.equal(text.split('\n').length, 1, `one paragraph:\n${text}`);
    assert.doesNotMatch(text, /\n\s+at /);
  });

  test('audio engines and audio types must match both ways (in-process, with the field path)', () => {
    const asr = {
      ...scriptedModel('listener', 'unused'),
      type: 'asr',
      pricing: { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0, per_second_usd: 0.01 },
      engine: { kind: 'flite' },
    };
    const onFlite = write('asr-flite.json', { models: [asr] });
    assert.throws(
      () => loadCatalogue(onFlite, vars),
      (e: unknown) =>
        e instanceof CatalogueError &&
        e.file === onFlite &&
        e.problems[0].path === 'models[0] ("listener").engine' &&
        /needs an engine of kind pocketsphinx or openai-audio, not flite/.test(e.message),
    );
    const textOnAudio = write('text-sphinx.json', { models: [scriptedModel('chatty', 'unused', { engine: { kind: 'pocketsphinx' } })] });
    assert.throws(
      () => loadCatalogue(textOnAudio, vars),
      /models\[0\] \("chatty"\)\.engine: model "chatty": a pocketsphinx engine serves models of type asr, not text/,
    );
    // The default catalogue's audio models pass.
    assert.ok(loadCatalogue(DEFAULT_CATALOGUE, vars).byId.has('tts-flite'));
  });

  test('problems are reported in-process as a CatalogueError with their paths', () => {
    const file = write('dup.json', { models: [scriptedModel('twin', 'http://127.0.0.1:9/v1'), scriptedModel('twin', 'http://127.0.0.1:9/v1')] });
    assert.throws(
      () => loadCatalogue(file, vars),
      (e: unknown) => e instanceof CatalogueError && e.file === file && e.problems[0].path === 'models[1] ("twin").id' && /duplicate model id/.test(e.message),
    );
    const alias = write('alias.json', { models: [scriptedModel('one', 'http://127.0.0.1:9/v1')], compatibility_mapping: { 'gpt-4o': 'nobody' } });
    assert.throws(() => loadCatalogue(alias, vars), /compatibility_mapping\.gpt-4o: names an unknown model "nobody"/);
  });
});

describe('the extra file adds models to the default catalogue', () => {
  test('the default catalogue stays; an added default text model takes the trait; paths are relative to the extra file', () => {
    const extra = write('models.local.json', {
      models: [
        scriptedModel('my-vllm', 'http://gpu-box:8000', { traits: ['default'] }),
        scriptedModel('my-gguf', 'unused', { engine: { kind: 'llama', path: 'weights/q4.gguf' } }),
      ],
      compatibility_mapping: { 'gpt-4o-mini': 'my-vllm' },
    });
    const cat = loadCatalogue(DEFAULT_CATALOGUE, vars, { file: extra, required: true });
    // Everything the default catalogue serves is still there (the demo embedding model above all).
    for (const id of ['lagoon-demo', 'lagoon-demo-embed', 'lagoon-demo-image', 'tts-flite']) assert.ok(cat.byId.has(id), id);
    const added = cat.byId.get('my-vllm')!;
    assert.deepEqual(added.traits, ['default']);
    assert.ok(defaultTraitsOf('lagoon-demo').includes('default'));
    assert.equal(cat.byId.get('lagoon-demo')!.traits.includes('default'), false);
    // The embedding model's default trait is left alone: only text models' moved.
    assert.deepEqual(cat.byId.get('lagoon-demo-embed')!.traits, defaultTraitsOf('lagoon-demo-embed'));
    assert.equal(added.engine.kind === 'openai' && added.engine.baseUrl, 'http://gpu-box:8000/v1');
    const gguf = cat.byId.get('my-gguf')!;
    assert.equal(gguf.engine.kind === 'llama' && gguf.engine.path, path.join(dir, 'weights/q4.gguf'));
    assert.equal(cat.file.compatibility_mapping['gpt-4o-mini'], 'my-vllm');
    assert.ok(cat.notes?.some((n) => /2 model\(s\) from .*models\.local\.json: my-vllm, my-gguf/.test(n)));
    assert.ok(cat.notes?.some((n) => /baseUrl http:\/\/gpu-box:8000 has no path; using http:\/\/gpu-box:8000\/v1/.test(n)));
  });

  test('an entry with an id already in the catalogue replaces it', () => {
    const extra = write('override.json', { models: [scriptedModel('lagoon-demo', 'http://127.0.0.1:9/v1', { name: 'Replaced' })] });
    const cat = loadCatalogue(DEFAULT_CATALOGUE, vars, { file: extra, required: true });
    assert.equal(cat.byId.get('lagoon-demo')!.name, 'Replaced');
    assert.equal(cat.models.filter((m) => m.id === 'lagoon-demo').length, 1);
  });

  test('the default extra file is optional; one named explicitly must exist', () => {
    const absent = path.join(dir, 'absent.json');
    assert.equal(loadCatalogue(DEFAULT_CATALOGUE, vars, { file: absent, required: false }).byId.has('lagoon-demo'), true);
    assert.throws(() => loadCatalogue(DEFAULT_CATALOGUE, vars, { file: absent, required: true }), /absent\.json is invalid: the file does not exist/);
  });
});

test('baseUrl: a bare host gets /v1; a URL with a path is kept (hosted APIs put theirs elsewhere)', () => {
  assert.equal(normaliseBaseUrl('http://localhost:8000'), 'http://localhost:8000/v1');
  assert.equal(normaliseBaseUrl('http://localhost:8000/'), 'http://localhost:8000/v1');
  assert.equal(normaliseBaseUrl('http://localhost:8000/v1/'), 'http://localhost:8000/v1');
  assert.equal(normaliseBaseUrl('https://api.groq.com/openai/v1'), 'https://api.groq.com/openai/v1');
  assert.equal(normaliseBaseUrl('https://generativelanguage.googleapis.com/v1beta/openai'), 'https://generativelanguage.googleapis.com/v1beta/openai');
});

/** A model's traits as the default catalogue file declares them. */
function defaultTraitsOf(id: string): string[] {
  const raw = JSON.parse(fs.readFileSync(DEFAULT_CATALOGUE, 'utf8'));
  return raw.models.find((m: { id: string }) => m.id === id).traits ?? [];
}

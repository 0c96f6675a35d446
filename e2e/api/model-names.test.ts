// Issue 28, finding 1: one POST /image/upscale with the default model stopped an API-only server, because the model's
// name (`ESRGAN slim (neural upscaler, 2×–4×)`) went into a header Node refuses, and the error answer threw again
// outside any handler. The real server (scripts/serve.ts, API only) is started twice: on the default catalogue as
// shipped, and on the same catalogue with every model renamed in non-Latin-1 text with control characters. Every
// billed route that names its model in a header is called once; each answers 200, its model-name header reads back
// as the catalogue's name (percent-encoded UTF-8), the process stays up, /healthz stays quick, and the account was
// charged exactly what its usage rows say.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import sharp from 'sharp';
import { openStore } from '../../lib/db/open.ts';
import { DEFAULT_CATALOGUE } from '../../lib/models/catalogue.ts';
import { type LoggedServer, lagoonCli, startLoggedServer } from '../support/processes.ts';

const picture = async (side: number) =>
  sharp({ create: { width: side, height: side, channels: 3, background: { r: 40, g: 120, b: 200 } } })
    .composite([
      { input: Buffer.from(`<svg width="${side}" height="${side}"><circle cx="${side / 2}" cy="${side / 2}" r="${side / 4}" fill="orange"/></svg>`) },
    ])
    .png()
    .toBuffer();

/** The default catalogue with names that Node would refuse in a header, as an operator might write them. */
function renamedCatalogue(dir: string, long: boolean): { file: string; names: Map<string, string> } {
  const catalogue = JSON.parse(fs.readFileSync(DEFAULT_CATALOGUE, 'utf8'));
  const names = new Map<string, string>();
  for (const [i, m] of catalogue.models.entries()) {
    m.name = long ? `${m.name} ${'模'.repeat(10_000)}` : `${m.name} — 模型 ✨ №${i} \u0007bell`;
    names.set(m.id, m.name);
  }
  const file = path.join(dir, 'models.json');
  fs.writeFileSync(file, JSON.stringify(catalogue));
  return { file, names };
}

const defaultNames = () => new Map<string, string>(JSON.parse(fs.readFileSync(DEFAULT_CATALOGUE, 'utf8')).models.map((m: any) => [m.id, m.name]));

/** What a client reads back from the model-name header: printable ASCII as is, anything else percent-encoded. */
const expectedHeader = (name: string) => name.replace(/[\x00-\x08\x0a-\x1f\x7f]/g, ' ');

/** The header as read back: the name itself, or (a 10 KB name) its beginning and an ellipsis, within 2 KB encoded. */
function assertNamed(header: string, name: string, route: string): void {
  const text = decodeURIComponent(header);
  if (!text.endsWith('…') || expectedHeader(name).endsWith('…')) {
    assert.equal(text, expectedHeader(name), route);
    return;
  }
  assert.ok(header.length <= 2048 + 9, `${route}: ${header.length} characters`);
  assert.ok(expectedHeader(name).startsWith(text.slice(0, -1)), route);
}

for (const variant of ['default catalogue', 'non-Latin-1 names', '10 KB names'] as const) {
  describe(`every billed route on the real API-only server, ${variant}`, () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-names-'));
    let server: LoggedServer;
    let key = '';
    let accountId = '';
    let names: Map<string, string>;
    after(async () => {
      if (server && server.proc.exitCode === null) server.proc.kill('SIGKILL');
      await server?.exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    test('each answers 200 with its model named in a readable header; the server stays up; billed as delivered', async () => {
      const env: NodeJS.ProcessEnv = { ...process.env, LAGOON_NO_APP: '1', LAGOON_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0' };
      if (variant !== 'default catalogue') {
        const renamed = renamedCatalogue(dataDir, variant === '10 KB names');
        env.LAGOON_MODELS = renamed.file;
        names = renamed.names;
      } else names = defaultNames();
      server = await startLoggedServer(env);
      accountId = await lagoonCli(env, 'account', 'create', '--name', 'names');
      key = await lagoonCli(env, 'key', 'create', '--account', accountId, '--type', 'INFERENCE');
      await lagoonCli(env, 'credit', 'grant', '--account', accountId, '--usd', '5');

      const base = `${server.origin}/api/v1`;
      const auth = { authorization: `Bearer ${key}` };
      const json = (body: unknown) => ({ method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const image = (await picture(256)).toString('base64');
      const speech = await fetch(`${base}/audio/speech`, json({ model: 'tts-flite', input: 'Hello there', response_format: 'wav' }));
      assert.equal(speech.status, 200, await speech.clone().text());
      const wav = Buffer.from(await speech.arrayBuffer());
      const form = new FormData();
      form.append('model', 'asr-pocketsphinx');
      form.append('file', new Blob([wav], { type: 'audio/wav' }), 'hello.wav');

      const calls: [string, string, RequestInit][] = [
        ['/chat/completions', 'lagoon-demo', json({ model: 'lagoon-demo', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] })],
        ['/chat/completions', 'lagoon-demo', json({ model: 'lagoon-demo', stream: true, max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] })],
        ['/responses', 'lagoon-demo', json({ model: 'lagoon-demo', input: 'Hi', max_output_tokens: 16 })],
        ['/embeddings', 'lagoon-demo-embed', json({ model: 'lagoon-demo-embed', input: 'a lagoon' })],
        ['/image/generate', 'lagoon-demo-image', json({ model: 'lagoon-demo-image', prompt: 'a lagoon', width: 256, height: 256 })],
        ['/images/generations', 'lagoon-demo-image', json({ model: 'lagoon-demo-image', prompt: 'a lagoon', size: '256x256' })],
        ['/image/edit', 'lagoon-demo-edit', json({ model: 'lagoon-demo-edit', prompt: 'brighter', image })],
        ['/image/multi-edit', 'lagoon-demo-edit', json({ model: 'lagoon-demo-edit', prompt: 'brighter', images: [image, image] })],
        ['/image/upscale', 'esrgan-slim', json({ image })],
        ['/image/background-remove', 'lagoon-demo-background-remove', json({ image })],
        ['/audio/speech', 'tts-flite', json({ model: 'tts-flite', input: 'Hello', response_format: 'mp3' })],
        ['/audio/transcriptions', 'asr-pocketsphinx', { method: 'POST', headers: auth, body: form }],
        ['/video/queue', 'lagoon-demo-video', json({ model: 'lagoon-demo-video', prompt: 'a lagoon', duration: '5s', resolution: '256p' })],
      ];
      for (const [route, model, init] of calls) {
        const r = await fetch(`${base}${route}`, { ...init, signal: AbortSignal.timeout(60_000) });
        const body = Buffer.from(await r.arrayBuffer());
        assert.equal(r.status, 200, `${route}: ${body.toString().slice(0, 300)}\n${server.log().slice(-2000)}`);
        const header = r.headers.get('x-service-model-name');
        if (route !== '/video/queue') {
          assert.ok(header, `${route} names its model`);
          assertNamed(header, names.get(model) as string, route);
        }
        const t0 = performance.now();
        const health = await fetch(`${server.origin}/healthz`);
        assert.equal(health.status, 200);
        assert.ok(performance.now() - t0 < 500, `/healthz after ${route}`);
      }
      assert.equal(server.proc.exitCode, null, server.log().slice(-2000));

      // Every charge has its usage row and nothing else moved: 5 USD granted = balance + the rows' charges.
      const store = await openStore({ dataDir });
      const rows = await store.all<{ usd: number }>('SELECT usd FROM usage WHERE account_id = $1', [accountId]);
      const balance = await store.get<{ usd: number }>('SELECT usd FROM accounts WHERE id = $1', [accountId]);
      await store.close();
      assert.ok(rows.length >= calls.length, `${rows.length} usage rows`);
      assert.equal(Number(balance?.usd) + rows.reduce((s, r) => s + Number(r.usd), 0), 5_000_000);
    });
  });
}

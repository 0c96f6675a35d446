// A loopback OpenAI audio API (what Kokoro-FastAPI, speaches, whisper.cpp's server, vLLM and LocalAI serve), for the
// tests of the openai-audio engine. It speaks the protocol, not a voice: speech is a sine tone whose length follows the
// input (0.02 s a character), as real 16-bit PCM (`pcm`, 24 kHz like OpenAI's) or WAV; other formats are the tone's
// PCM behind a `FAKE-<format>` tag, since only the bytes' pass-through is under test. It streams in 4 KiB chunks.
// Transcription reads the multipart form with the platform's own parser and answers verbose_json (or json/text).
//
// Markers in the speech `input` (or the transcription `prompt`): [[status:CODE]] answers that status with an OpenAI
// error body; [[delay:MS]] waits before the headers; [[fail_mid]] sends three chunks and then cuts the connection.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const FAKE_RATE = 24_000;
export const FAKE_TRANSCRIPT = 'the quick brown fox jumps over the lazy dog';

export interface SpeechCall {
  body: Record<string, unknown>;
  authorization: string | undefined;
}

export interface TranscriptionCall {
  fields: Record<string, string[]>;
  file: { name: string; type: string; bytes: Buffer } | undefined;
  authorization: string | undefined;
}

export interface AudioUpstream {
  url: string;
  speech: SpeechCall[];
  transcriptions: TranscriptionCall[];
  close(): Promise<void>;
}

/** The tone the fake speaks for `input`: deterministic, so a test can rebuild the expected bytes. */
export function fakeTone(input: string, rate = FAKE_RATE): Buffer {
  const n = Math.max(1, Math.round(input.length * 0.02 * rate));
  const out = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) out.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2);
  return out;
}

function wav(pcm: Buffer, rate: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + pcm.length, 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([h, pcm]);
}

/** The bytes the fake answers for an input and format. */
export function fakeSpeech(input: string, format: string): Buffer {
  const tone = fakeTone(input);
  if (format === 'pcm') return tone;
  if (format === 'wav') return wav(tone, FAKE_RATE);
  return Buffer.concat([Buffer.from(`FAKE-${format}:`), tone]);
}

const marker = (text: string, name: string) => new RegExp(`\\[\\[${name}:(\\d+)\\]\\]`).exec(text)?.[1];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function fail(res: http.ServerResponse, status: number): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: `fake audio status ${status}`, type: 'fake', code: null } }));
}

async function readAll(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** `port`: listen there (a test restarting an upstream where the catalogue points); any free port by default. */
export async function startAudioUpstream(opts: { port?: number } = {}): Promise<AudioUpstream> {
  const speech: SpeechCall[] = [];
  const transcriptions: TranscriptionCall[] = [];
  const server = http.createServer(async (req, res) => {
    const body = await readAll(req);
    if (req.method === 'POST' && req.url === '/v1/audio/speech') {
      let j: Record<string, unknown>;
      try {
        j = JSON.parse(body.toString());
      } catch {
        return fail(res, 400);
      }
      speech.push({ body: j, authorization: req.headers.authorization });
      const input = String(j.input ?? '');
      const delay = marker(input, 'delay');
      if (delay) await sleep(Number(delay));
      const status = marker(input, 'status');
      if (status) return fail(res, Number(status));
      const format = String(j.response_format ?? 'mp3');
      const bytes = fakeSpeech(input, format);
      res.writeHead(200, { 'content-type': format === 'pcm' ? 'audio/pcm' : `audio/${format}` });
      for (let at = 0, sent = 1; at < bytes.length; at += 4096, sent++) {
        res.write(bytes.subarray(at, at + 4096));
        if (input.includes('[[fail_mid]]') && sent === 3) {
          await sleep(20);
          res.socket?.destroy();
          return;
        }
        await sleep(1);
      }
      res.end();
      return;
    }
    if (req.method === 'POST' && req.url === '/v1/audio/transcriptions') {
      const form = await new Request('http://fake/', {
        method: 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? '' },
        body: new Uint8Array(body),
      })
        .formData()
        .catch(() => undefined);
      if (!form) return fail(res, 400);
      const fields: Record<string, string[]> = {};
      let file: TranscriptionCall['file'];
      for (const [k, v] of form.entries()) {
        if (typeof v === 'string') (fields[k] ??= []).push(v);
        else file = { name: v.name, type: v.type, bytes: Buffer.from(await v.arrayBuffer()) };
      }
      transcriptions.push({ fields, file, authorization: req.headers.authorization });
      const prompt = fields.prompt?.[0] ?? '';
      const delay = marker(prompt, 'delay');
      if (delay) await sleep(Number(delay));
      const status = marker(prompt, 'status');
      if (status) return fail(res, Number(status));
      if (!file) return fail(res, 400);
      const words = FAKE_TRANSCRIPT.split(' ').map((word, i) => ({ word, start: i * 0.5, end: i * 0.5 + 0.4 }));
      const format = fields.response_format?.[0] ?? 'json';
      if (format === 'text') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(FAKE_TRANSCRIPT);
      }
      const out: Record<string, unknown> = { text: FAKE_TRANSCRIPT };
      if (format === 'verbose_json') {
        Object.assign(out, {
          task: 'transcribe',
          language: 'english',
          duration: words.length * 0.5,
          segments: [{ id: 0, start: 0, end: words.length * 0.5, text: ` ${FAKE_TRANSCRIPT}` }],
        });
        if (fields['timestamp_granularities[]']?.includes('word')) out.words = words;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(out));
    }
    fail(res, 404);
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    speech,
    transcriptions,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

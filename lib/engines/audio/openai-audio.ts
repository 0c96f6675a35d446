// An OpenAI audio API upstream (Kokoro-FastAPI, speaches / faster-whisper-server, whisper.cpp's server, vLLM,
// LocalAI): POST /audio/speech streams the encoded audio back as it is made, and is passed through as it comes;
// POST /audio/transcriptions takes the upload as sent (multipart) and answers verbose_json with word and segment
// times. The header timeout runs from dispatch; the caller's AbortSignal aborts the upstream request.
import { readFile } from 'node:fs/promises';
import { Agent, FormData, fetch } from 'undici';
import { EngineError } from '../text/types.ts';
import type { SpeakRequest, SpeechEngine, Transcript, TranscribeInput, TranscribeOptions, TranscriptionEngine, VoiceOptions } from './types.ts';

export interface OpenAIAudioOptions {
  /** With its /v1, without a trailing slash. */
  baseUrl: string;
  /** The upstream's model name. */
  model: string;
  apiKey?: string;
  timeoutMs?: number;
  /** The sample rate of the upstream's `pcm` (OpenAI's is 24 kHz). */
  pcmSampleRate?: number;
  connections?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;

async function failure(res: { status: number; text(): Promise<string> }): Promise<EngineError> {
  const text = await res.text().catch(() => '');
  let message = text.slice(0, 300);
  try {
    const j = JSON.parse(text);
    const err = typeof j.error === 'object' && j.error ? j.error : j;
    message = String(err.message ?? err.error ?? err.detail ?? message);
  } catch {
    /* not JSON: keep the text */
  }
  if (res.status === 400 || res.status === 422) return new EngineError('bad_request', message || 'the upstream rejected the request');
  if (res.status === 429 || res.status === 503) return new EngineError('capacity', `upstream at capacity (${res.status})`);
  if (res.status === 504 || res.status === 408) return new EngineError('timeout', `upstream timed out (${res.status})`);
  return new EngineError('failed', `upstream error ${res.status}`);
}

function transportFailure(e: unknown, signal: AbortSignal, timedOut: boolean): EngineError {
  if (e instanceof EngineError) return e;
  if (timedOut) return new EngineError('timeout', 'the upstream did not answer in time');
  if (signal.aborted) return new EngineError('failed', 'aborted by the client');
  return new EngineError('failed', `upstream unreachable: ${(e as Error).message ?? e}`);
}

const seconds = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);

/** A transcript from an OpenAI (verbose_)json body; a plain `{text}` has no times. */
export function transcriptFrom(j: Record<string, any>): Transcript {
  if (typeof j?.text !== 'string') throw new EngineError('failed', 'the upstream sent no transcript text');
  const words = Array.isArray(j.words)
    ? j.words.filter((w: any) => typeof w?.word === 'string').map((w: any) => ({ word: w.word.trim(), start: seconds(w.start), end: seconds(w.end) }))
    : [];
  const segments = Array.isArray(j.segments)
    ? j.segments.filter((s: any) => typeof s?.text === 'string').map((s: any) => ({ text: s.text.trim(), start: seconds(s.start), end: seconds(s.end) }))
    : [];
  return { text: j.text.trim(), language: typeof j.language === 'string' ? j.language : undefined, words, segments };
}

export function createOpenAIAudioEngine(opts: OpenAIAudioOptions): SpeechEngine & TranscriptionEngine {
  const agent = new Agent({ connections: opts.connections ?? 64, keepAliveTimeout: 30_000 });
  const auth: Record<string, string> = opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {};
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  /** Sends one request and resolves once the upstream's headers arrive with a 2xx; the body is the caller's to read. */
  async function send(path: string, body: string | FormData, headers: Record<string, string>, signal: AbortSignal) {
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      if (signal.aborted) throw new Error('aborted before dispatch');
      const res = await fetch(`${opts.baseUrl}${path}`, {
        method: 'POST',
        body,
        headers: { ...auth, ...headers },
        signal: controller.signal,
        dispatcher: agent,
      });
      if (res.status < 200 || res.status >= 300) throw await failure(res);
      return res;
    } catch (e) {
      signal.removeEventListener('abort', onAbort);
      throw transportFailure(e, signal, timedOut);
    } finally {
      clearTimeout(timer);
    }
  }

  function speechBody(req: { input: string; format: string } & VoiceOptions): string {
    // Only OpenAI's own fields: an upstream that validates strictly refuses others. `prompt` is OpenAI's `instructions`.
    return JSON.stringify({ model: opts.model, input: req.input, voice: req.voice, response_format: req.format, speed: req.speed, instructions: req.prompt });
  }

  async function* bodyOf(res: Awaited<ReturnType<typeof fetch>>, signal: AbortSignal): AsyncGenerator<Buffer> {
    if (!res.body) return;
    try {
      for await (const chunk of res.body) yield Buffer.from(chunk);
    } catch (e) {
      throw transportFailure(e, signal, false);
    }
  }

  return {
    router: 'openai-audio',
    sampleRate: opts.pcmSampleRate ?? 24_000,
    async speak(req: SpeakRequest) {
      const res = await send('/audio/speech', speechBody(req), { 'content-type': 'application/json' }, req.signal);
      return bodyOf(res, req.signal);
    },
    async pcm(text: string, o: VoiceOptions) {
      const res = await send('/audio/speech', speechBody({ ...o, input: text, format: 'pcm' }), { 'content-type': 'application/json' }, o.signal);
      const chunks: Buffer[] = [];
      for await (const c of bodyOf(res, o.signal)) chunks.push(c);
      const pcm = Buffer.concat(chunks);
      return pcm.subarray(0, pcm.length - (pcm.length % 2));
    },
    async transcribe(input: TranscribeInput, o: TranscribeOptions): Promise<Transcript> {
      const form = new FormData();
      if (input.original) {
        form.append('file', new Blob([new Uint8Array(input.original.bytes)], { type: input.original.contentType }), input.original.filename);
      } else {
        form.append('file', new Blob([new Uint8Array(await readFile(input.wavPath))], { type: 'audio/wav' }), 'audio.wav');
      }
      form.append('model', opts.model);
      form.append('response_format', 'verbose_json');
      form.append('timestamp_granularities[]', 'segment');
      if (o.words) form.append('timestamp_granularities[]', 'word');
      if (o.language) form.append('language', o.language);
      if (o.prompt) form.append('prompt', o.prompt);
      const res = await send('/audio/transcriptions', form, {}, o.signal);
      let j: Record<string, any>;
      try {
        j = (await res.json()) as Record<string, any>;
      } catch (e) {
        throw transportFailure(e instanceof SyntaxError ? new EngineError('failed', 'the upstream sent a transcript that is not JSON') : e, o.signal, false);
      }
      return transcriptFrom(j);
    },
    close: () => agent.close(),
  };
}

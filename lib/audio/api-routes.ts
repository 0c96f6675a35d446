// The audio endpoints: POST /audio/speech (the audio bytes, or streamed as each sentence is made), POST
// /audio/transcriptions (multipart upload → JSON or text), POST /audio/voices (cloning: refused, no engine clones), and
// POST /video/transcriptions (a media URL → its transcript). Pipelines in lib/audio; this file reads bodies
// and writes the answers with the model and balance headers.
import { ApiError } from '../api/errors.ts';
import { balanceHeaders, modelHeaders } from '../api/headers.ts';
import type { CallMeta } from '../engines/call.ts';
import { voiceCloneFieldsSchema } from './schema.ts';
import { runSpeech } from './speech.ts';
import { type AudioDeps, runTranscription, runVideoTranscription } from './transcription.ts';
import { parseOrThrow } from '../api/validation.ts';
import { DEFAULT_MAX_AUDIO_BYTES } from '../models/audio-models.ts';
import { resolveModel } from '../models/catalogue.ts';
import { jsonBody, principalOf, type RequestCtx, setBalanceRemaining, withWalletCredit } from '../http/context.ts';
import { readMultipart } from '../http/multipart.ts';
import { json, raw, type Reply } from '../http/reply.ts';

const audioDeps = (ctx: RequestCtx): AudioDeps => ({ ...ctx.svc.chatDeps, audio: ctx.svc.audio });

const callCtx = (ctx: RequestCtx) => ({ principal: principalOf(ctx), requestId: ctx.requestId, signal: ctx.signal, responseHeaders: ctx.extraHeaders });

/** Model and balance headers; X-Balance-Remaining for a wallet counts the charge, or a stream's hold (its most). */
function answerHeaders(ctx: RequestCtx, meta: CallMeta, spent: number): void {
  const before = meta.balancesBefore;
  Object.assign(ctx.extraHeaders, modelHeaders(ctx.headerCtx, meta.model, meta.router), balanceHeaders(ctx.headerCtx, before));
  setBalanceRemaining(ctx, before.usd - before.usdHeld - spent);
}

const bytesReply = (contentType: string, body: Buffer | string): Reply =>
  raw({ 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) }, body);

export async function audioSpeech(ctx: RequestCtx): Promise<Reply> {
  const call = callCtx(ctx);
  const body = await jsonBody(ctx);
  const result = await withWalletCredit(ctx, () => runSpeech(audioDeps(ctx), call, body));
  if (result.kind === 'bytes') {
    answerHeaders(ctx, result.meta, result.charged.usd);
    return bytesReply(result.contentType, result.body);
  }
  answerHeaders(ctx, result.meta, result.meta.hold.usd);
  return { kind: 'chunks', headers: { 'content-type': result.contentType, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' }, chunks: result.chunks };
}

/** The largest upload any transcription model takes, and a little for the form's other fields. */
function uploadLimit(ctx: RequestCtx): number {
  const largest = Math.max(DEFAULT_MAX_AUDIO_BYTES, ...ctx.svc.catalogue.models.filter((m) => m.type === 'asr').map((m) => m.audio?.max_file_bytes ?? 0));
  return largest + 64 * 1024;
}

export async function audioTranscriptions(ctx: RequestCtx): Promise<Reply> {
  const call = callCtx(ctx);
  const form = await readMultipart(ctx, { maxBytes: uploadLimit(ctx), maxFiles: 1, repeatable: ['timestamp_granularities[]', 'timestamp_granularities'] });
  const file = form.files[0];
  if (file && file.name !== 'file') throw new ApiError('INVALID_REQUEST', `The upload must be the field "file", not "${file.name}"`, { param: 'file' });
  const granularities = [...(form.lists['timestamp_granularities[]'] ?? []), ...(form.lists.timestamp_granularities ?? [])];
  const fields: Record<string, unknown> = { ...form.fields, ...(granularities.length ? { timestamp_granularities: granularities } : {}) };
  const result = await withWalletCredit(ctx, () => runTranscription(audioDeps(ctx), call, fields, file));
  answerHeaders(ctx, result.meta, result.charged.usd);
  if (result.body.kind === 'json') return json(result.body.value);
  return bytesReply(result.body.contentType, result.body.text);
}

export async function videoTranscriptions(ctx: RequestCtx): Promise<Reply> {
  const call = callCtx(ctx);
  const body = await jsonBody(ctx);
  const result = await withWalletCredit(ctx, () => runVideoTranscription(audioDeps(ctx), call, body));
  answerHeaders(ctx, result.meta, result.charged.usd);
  if (result.format === 'text') return bytesReply('text/plain; charset=utf-8', result.transcript);
  return json({ transcript: result.transcript, ...(result.language ? { lang: result.language } : {}) });
}

/** Voice cloning: no engine here clones voices, so every request is a clear 400 (after its form was read). */
export async function audioVoices(ctx: RequestCtx): Promise<Reply> {
  principalOf(ctx);
  const form = await readMultipart(ctx, { maxBytes: DEFAULT_MAX_AUDIO_BYTES + 64 * 1024, maxFiles: 1 });
  const fields = parseOrThrow(voiceCloneFieldsSchema, form.fields, ctx.svc.config.wire);
  const tts = ctx.svc.catalogue.models.filter((m) => m.type === 'tts');
  if (fields.model !== undefined) {
    const model = resolveModel(ctx.svc.catalogue, fields.model, 'tts');
    if (model.type !== 'tts') throw new ApiError('INVALID_MODEL', `Model ${model.id} is a ${model.type} model, not a speech (tts) model`, { param: 'model' });
    throw new ApiError('INVALID_MODEL', `Model ${model.id} does not clone voices: it speaks with its own voices (listed by GET /models?type=tts)`, {
      param: 'model',
    });
  }
  throw new ApiError(
    'INVALID_REQUEST',
    `Voice cloning is not available on this server: no speech model clones voices${tts.length ? ` (${tts.map((m) => m.id).join(', ')} speak with their own voices, listed by GET /models?type=tts)` : ''}`,
  );
}

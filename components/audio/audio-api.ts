'use client';
// The audio routes of the app's own API (lib/audio/wire.ts). Speech and dictation are not JSON round trips, so
// they are fetched here directly, with the session's CSRF token from /auth/me; their failures are JSON error bodies
// read into AudioFailure.
import { useQuery } from '@tanstack/react-query';
import { APP_API, call, errorBodyText } from '@/components/api/client.ts';
import { useMe } from '@/components/session/use-me.ts';
import type { DictationResult, SpeechRequest } from '@/lib/audio/wire.ts';
import type { AudioFailure } from './audio-errors.ts';

export function useAudioOptions() {
  return useQuery({ queryKey: ['audio-options'], queryFn: () => call('GET /audio/options'), staleTime: 5 * 60_000 });
}

/** The session's CSRF token (every write needs it). */
export const useCsrfToken = (): string | undefined => useMe().data?.csrfToken;

export class AudioRequestError extends Error implements AudioFailure {
  readonly status: number;
  readonly code: string;
  readonly retryAfter?: number;
  constructor(f: AudioFailure) {
    super(f.message);
    this.status = f.status;
    this.code = f.code;
    this.retryAfter = f.retryAfter;
  }
}

/** A non-2xx answer as an AudioRequestError (the server's error body: `{ error, code }`). */
async function failureOf(res: Response): Promise<AudioRequestError> {
  let body: Record<string, unknown> = {};
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    // Not our error body (a proxy's page): the status says enough.
  }
  const ra = Number(res.headers.get('retry-after'));
  return new AudioRequestError({
    status: res.status,
    code: typeof body.code === 'string' ? body.code : 'UNKNOWN_ERROR',
    message: errorBodyText(body, res.status),
    retryAfter: Number.isFinite(ra) && ra > 0 ? ra : undefined,
  });
}

async function send(path: string, init: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(APP_API + path, { ...init, credentials: 'same-origin' });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    // Worded by audioErrorText (status 0) in the user's language.
    throw new AudioRequestError({ status: 0, code: 'NETWORK_ERROR', message: '' });
  }
  if (!res.ok) throw await failureOf(res);
  return res;
}

/** POST /audio/speech: resolves once the audio starts arriving (its body streams sentence by sentence). */
export function fetchSpeech(body: SpeechRequest, csrf: string | undefined, signal: AbortSignal): Promise<Response> {
  return send('/audio/speech', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'audio/mpeg, application/json', ...(csrf ? { 'x-csrf-token': csrf } : {}) },
    body: JSON.stringify(body),
    signal,
  });
}

/** POST /audio/transcriptions with the recording as the body. */
export async function postDictation(recording: Blob, csrf: string | undefined, signal?: AbortSignal): Promise<DictationResult> {
  const res = await send('/audio/transcriptions', {
    method: 'POST',
    headers: { 'content-type': recording.type || 'application/octet-stream', ...(csrf ? { 'x-csrf-token': csrf } : {}) },
    body: recording,
    signal,
  });
  return (await res.json()) as DictationResult;
}

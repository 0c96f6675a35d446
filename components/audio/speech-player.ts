'use client';
// Plays an answer aloud as it is synthesised. POST /api/app/audio/speech answers audio/mpeg sentence by sentence; its
// body is fed, chunk by chunk, into a MediaSource SourceBuffer ('audio/mpeg', sequence mode), so the first sentence
// plays as soon as its bytes arrive while the server is still making the rest. (An <audio src> on a GET route would
// also stream, but its failures are opaque to the page: a 402 or 429 could not be put into words, and the text would
// need a server-side token to travel by GET.) Long answers are read in pieces, one request each, appended to the same
// buffer so they play as one. Browsers without MediaSource for MP3 fetch each piece whole and play it in turn.
// One answer plays at a time; state is a tiny store the buttons subscribe to.
import { useSyncExternalStore } from 'react';
import type { AudioFailure } from './audio-errors.ts';
import { AudioRequestError, fetchSpeech } from './audio-api.ts';

export type PlayerPhase = 'idle' | 'loading' | 'playing';

export interface PlayerView {
  phase: PlayerPhase;
  /** Why the last attempt for this answer failed (cleared by the next one). */
  error?: AudioFailure;
}

export interface ReadAloudRequest {
  /** The answer being read (one at a time). */
  id: string;
  pieces: string[];
  voice?: string;
  speed: number;
  csrf: string | undefined;
}

const IDLE: PlayerView = { phase: 'idle' };
const views = new Map<string, PlayerView>();
const listeners = new Set<() => void>();
let current: { id: string; stop: () => void } | undefined;
let element: HTMLAudioElement | undefined;

function setView(id: string, view: PlayerView): void {
  if (view.phase === 'idle' && !view.error) views.delete(id);
  else views.set(id, view);
  for (const l of listeners) l();
}

/** The one <audio> element (hidden; tests read its progress through data-testid="read-aloud-audio"). */
function audioElement(): HTMLAudioElement {
  if (!element?.isConnected) {
    element = document.createElement('audio');
    element.dataset.testid = 'read-aloud-audio';
    element.hidden = true;
    document.body.append(element);
  }
  return element;
}

const once = (target: EventTarget, type: string, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const done = () => {
      signal.removeEventListener('abort', stop);
      resolve();
    };
    const stop = () => {
      target.removeEventListener(type, done);
      reject(signal.reason);
    };
    target.addEventListener(type, done, { once: true });
    signal.addEventListener('abort', stop, { once: true });
  });

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/** Appends one chunk, waiting for the buffer; a full buffer (far ahead of playback) waits for playback to free room. */
async function append(sb: SourceBuffer, chunk: Uint8Array, signal: AbortSignal): Promise<void> {
  for (;;) {
    if (signal.aborted) throw signal.reason;
    try {
      sb.appendBuffer(chunk as Uint8Array<ArrayBuffer>);
      await once(sb, 'updateend', signal);
      return;
    } catch (e) {
      if ((e as Error).name !== 'QuotaExceededError') throw e;
      await sleep(1000, signal);
    }
  }
}

const failureOf = (e: unknown): AudioFailure =>
  e instanceof AudioRequestError
    ? { status: e.status, code: e.code, message: e.message, retryAfter: e.retryAfter }
    : (e as Error)?.name === 'NotAllowedError'
      ? { status: -1, code: 'PLAYBACK_BLOCKED', message: '' }
      : { status: -1, code: 'PLAYBACK_FAILED', message: '' };

export const canStreamMp3 = (): boolean => typeof MediaSource !== 'undefined' && MediaSource.isTypeSupported('audio/mpeg');

/**
 * Starts reading `r` aloud (stopping whatever was playing). Call it from the click itself: playback is asked for
 * before the first byte arrives, while the click still lets the page play sound.
 */
export function readAloud(r: ReadAloudRequest): void {
  stopReading();
  const ctl = new AbortController();
  const audio = audioElement();
  let url: string | undefined;
  let failure: AudioFailure | undefined;
  const onPlaying = () => setView(r.id, { phase: 'playing' });
  audio.addEventListener('playing', onPlaying);
  const stop = () => {
    ctl.abort(new DOMException('stopped', 'AbortError'));
    audio.removeEventListener('playing', onPlaying);
    audio.pause();
    audio.removeAttribute('src');
    audio.load();
    if (url) URL.revokeObjectURL(url);
    if (current?.stop === stop) current = undefined;
    setView(r.id, failure ? { phase: 'idle', error: failure } : IDLE);
  };
  current = { id: r.id, stop };
  setView(r.id, { phase: 'loading' });
  audio.playbackRate = 1;

  const streamed = async () => {
    const ms = new MediaSource();
    url = URL.createObjectURL(ms);
    audio.src = url;
    const started = audio.play();
    started.catch((e) => {
      if ((e as Error).name === 'NotAllowedError') {
        failure = failureOf(e);
        stop();
      }
    });
    await once(ms, 'sourceopen', ctl.signal);
    const sb = ms.addSourceBuffer('audio/mpeg');
    sb.mode = 'sequence';
    try {
      for (const text of r.pieces) {
        const res = await fetchSpeech({ text, voice: r.voice, speed: r.speed }, r.csrf, ctl.signal);
        const reader = res.body!.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          await append(sb, value, ctl.signal);
        }
      }
    } catch (e) {
      // What already arrived still plays to its end; the failure is said once it has.
      if (ctl.signal.aborted || sb.buffered.length === 0) throw e;
      failure = failureOf(e);
    }
    if (ms.readyState === 'open') ms.endOfStream();
    if (!audio.ended) await once(audio, 'ended', ctl.signal);
  };

  const whole = async () => {
    for (const text of r.pieces) {
      const blob = await (await fetchSpeech({ text, voice: r.voice, speed: r.speed }, r.csrf, ctl.signal)).blob();
      if (url) URL.revokeObjectURL(url);
      url = URL.createObjectURL(blob);
      audio.src = url;
      await audio.play();
      await once(audio, 'ended', ctl.signal);
    }
  };

  (canStreamMp3() ? streamed() : whole()).then(
    () => current?.stop === stop && stop(),
    (e) => {
      if (ctl.signal.aborted) return;
      failure = failureOf(e);
      stop();
    },
  );
}

export function stopReading(): void {
  current?.stop();
}

export function clearReadAloudError(id: string): void {
  if (views.get(id)?.error) setView(id, IDLE);
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** The read-aloud state of answer `id`. */
export function usePlayerView(id: string): PlayerView {
  return useSyncExternalStore(
    subscribe,
    () => views.get(id) ?? IDLE,
    () => IDLE,
  );
}

'use client';
// Dictation: the microphone recorded with MediaRecorder (Opus in WebM or Ogg where the browser makes it, else its own
// choice) until the user stops or the transcription model's longest recording is reached, then sent to the app's own
// route and handed back as text. Every failure (the microphone denied, missing or busy; the server's refusal) is a
// sentence for the user; the microphone is released as soon as recording ends, or when the component goes away.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslations } from 'use-intl';
import { AudioRequestError, postDictation, useCsrfToken } from './audio-api.ts';
import { audioErrorText, dictationUnsupported, microphoneErrorText } from './audio-errors.ts';

export type DictationPhase = 'idle' | 'starting' | 'recording' | 'transcribing';

const RECORDING_TYPES = ['audio/webm;codecs=opus', 'audio/ogg;codecs=opus', 'audio/mp4', 'audio/webm'];

interface Session {
  recorder: MediaRecorder;
  stream: MediaStream;
  chunks: Blob[];
  timer: ReturnType<typeof setInterval>;
  cancelled: boolean;
}

export interface Dictation {
  phase: DictationPhase;
  /** Seconds recorded so far. */
  elapsed: number;
  error: string | null;
  start(): Promise<void>;
  stop(): void;
  dismissError(): void;
}

export function useDictation(onText: (text: string) => void, limits: { maxSeconds: number; maxBytes: number } | undefined): Dictation {
  const [phase, setPhase] = useState<DictationPhase>('idle');
  const [elapsed, setElapsed] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const session = useRef<Session | undefined>(undefined);
  const csrf = useCsrfToken();
  const t = useTranslations('audioErrors');
  const latest = useRef({ onText, csrf, limits, t });
  latest.current = { onText, csrf, limits, t };

  const release = useCallback((s: Session) => {
    clearInterval(s.timer);
    for (const track of s.stream.getTracks()) track.stop();
    if (session.current === s) session.current = undefined;
  }, []);

  const finish = useCallback(
    async (s: Session) => {
      release(s);
      if (s.cancelled) return;
      const blob = new Blob(s.chunks, { type: s.recorder.mimeType || s.chunks[0]?.type || 'audio/webm' });
      const { limits: l, csrf: token, onText: deliver, t: say } = latest.current;
      if (blob.size === 0) {
        setPhase('idle');
        setError(say('emptyAudio'));
        return;
      }
      if (l && blob.size > l.maxBytes) {
        setPhase('idle');
        setError(say('tooLong'));
        return;
      }
      setPhase('transcribing');
      try {
        const result = await postDictation(blob, token);
        if (result.text) deliver(result.text);
        else setError(say('noSpeech'));
      } catch (e) {
        setError(e instanceof AudioRequestError ? audioErrorText(e, 'dictation', say) : say('notSent'));
      } finally {
        setPhase('idle');
      }
    },
    [release],
  );

  const stop = useCallback(() => {
    const s = session.current;
    if (s && s.recorder.state !== 'inactive') s.recorder.stop();
  }, []);

  const start = useCallback(async () => {
    if (session.current) return;
    const say = latest.current.t;
    setError(null);
    const why = dictationUnsupported(
      {
        isSecureContext: window.isSecureContext,
        // Undefined on pages that are not secure contexts, whatever the types say.
        mediaDevices: navigator.mediaDevices as MediaDevices | undefined,
        MediaRecorder: typeof MediaRecorder === 'undefined' ? undefined : MediaRecorder,
      },
      say,
    );
    if (why) {
      setError(why);
      return;
    }
    setPhase('starting');
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true } });
    } catch (e) {
      setPhase('idle');
      setError(microphoneErrorText(e, say));
      return;
    }
    let recorder: MediaRecorder;
    try {
      const mimeType = RECORDING_TYPES.find((type) => MediaRecorder.isTypeSupported(type));
      recorder = new MediaRecorder(stream, mimeType ? { mimeType, audioBitsPerSecond: 48_000 } : undefined);
    } catch (e) {
      for (const track of stream.getTracks()) track.stop();
      setPhase('idle');
      setError(microphoneErrorText(e, say));
      return;
    }
    const startedAt = Date.now();
    const s: Session = {
      recorder,
      stream,
      chunks: [],
      cancelled: false,
      timer: setInterval(() => {
        const seconds = (Date.now() - startedAt) / 1000;
        setElapsed(seconds);
        // The longest recording the model transcribes at once: stop there rather than be refused after.
        if (seconds >= (latest.current.limits?.maxSeconds ?? Number.POSITIVE_INFINITY) - 1) stop();
      }, 250),
    };
    recorder.ondataavailable = (e) => {
      if (e.data.size) s.chunks.push(e.data);
    };
    recorder.onstop = () => void finish(s);
    recorder.onerror = () => {
      s.cancelled = true;
      release(s);
      setPhase('idle');
      setError(say('recordingFailed'));
    };
    session.current = s;
    setElapsed(0);
    recorder.start(1000);
    setPhase('recording');
  }, [finish, stop, release]);

  // Leaving the page mid-recording: the microphone is released and nothing is sent.
  useEffect(
    () => () => {
      const s = session.current;
      if (!s) return;
      s.cancelled = true;
      if (s.recorder.state !== 'inactive') s.recorder.stop();
      release(s);
    },
    [release],
  );

  const dismissError = useCallback(() => setError(null), []);
  return { phase, elapsed, error, start, stop, dismissError };
}

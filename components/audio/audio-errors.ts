// Read-aloud and dictation failures in plain words: the server's refusals (no credit, rate limited, busy, too long)
// and the browser's microphone errors (denied, missing, in use, not offered here), in the user's language through the
// catalogue's `audioErrors`. Pure, so testable without a browser.
import type { useTranslations } from 'use-intl';

export interface AudioFailure {
  /** HTTP status; 0 for no answer at all, -1 for a failure in the browser itself. */
  status: number;
  code: string;
  message: string;
  retryAfter?: number;
}

/** The messages' translator (`useTranslations('audioErrors')`). */
export type AudioT = ReturnType<typeof useTranslations<'audioErrors'>>;

const wait = (t: AudioT, s: number | undefined) =>
  s && s > 0 ? (s < 90 ? t('tryAgainSeconds', { seconds: Math.ceil(s) }) : t('tryAgainMinutes', { minutes: Math.ceil(s / 60) })) : t('tryAgainMoment');

/** What to tell the user when reading aloud (`speech`) or transcribing a dictation (`dictation`) failed. */
export function audioErrorText(e: AudioFailure, what: 'speech' | 'dictation', t: AudioT): string {
  const speech = what === 'speech';
  if (e.status === 402 || e.code === 'INSUFFICIENT_BALANCE') return speech ? t('noCreditSpeech') : t('noCreditDictation');
  if (e.status === 429) return `${speech ? t('tooManySpeech') : t('tooManyDictation')} ${wait(t, e.retryAfter)}`;
  if (e.status === 503) return `${speech ? t('busySpeech') : t('busyDictation')} ${wait(t, e.retryAfter)}`;
  if (e.status === 504) return t('timeout');
  if (e.status === 0) return t('unreachable');
  if (e.code === 'EMPTY_AUDIO') return t('emptyAudio');
  if (e.status === 413) return t('tooLong');
  if (e.status === 401) return t('sessionEnded');
  if (e.code === 'PLAYBACK_BLOCKED') return t('playbackBlocked');
  if (e.code === 'PLAYBACK_FAILED') return t('playbackFailed');
  return e.message || t('generic');
}

/** A microphone error from getUserMedia or MediaRecorder, in words. */
export function microphoneErrorText(e: unknown, t: AudioT): string {
  const name = (e as { name?: string } | null)?.name ?? '';
  if (name === 'NotAllowedError' || name === 'PermissionDeniedError' || name === 'SecurityError') return t('micDenied');
  if (name === 'NotFoundError' || name === 'DevicesNotFoundError' || name === 'OverconstrainedError') return t('micMissing');
  if (name === 'NotReadableError' || name === 'TrackStartError' || name === 'AbortError') return t('micBusy');
  if (name === 'NotSupportedError') return t('micUnsupported');
  return t('micFailed');
}

/** Why this browser cannot dictate at all, or null when it can (mediaDevices exist only on secure pages). */
export function dictationUnsupported(env: { mediaDevices?: unknown; MediaRecorder?: unknown; isSecureContext?: boolean }, t: AudioT): string | null {
  if (env.isSecureContext === false) return t('insecure');
  if (!env.mediaDevices || !env.MediaRecorder) return t('noRecorder');
  return null;
}

// Read-aloud and dictation failures in plain words: the server's refusals (no credit, rate limited, busy, too long)
// and the browser's microphone errors (denied, missing, in use, not offered here). Pure, so testable without a browser.

export interface AudioFailure {
  /** HTTP status; 0 for no answer at all, -1 for a failure in the browser itself. */
  status: number;
  code: string;
  message: string;
  retryAfter?: number;
}

const wait = (s: number | undefined) =>
  s && s > 0 ? ` Try again in ${s < 90 ? `${Math.ceil(s)} s` : `${Math.ceil(s / 60)} min`}.` : ' Try again in a moment.';

/** What to tell the user when reading aloud (`speech`) or transcribing a dictation (`dictation`) failed. */
export function audioErrorText(e: AudioFailure, what: 'speech' | 'dictation'): string {
  const doing = what === 'speech' ? 'hear answers read aloud' : 'dictate';
  if (e.status === 402 || e.code === 'INSUFFICIENT_BALANCE') return `You're out of credit: add credit to ${doing}.`;
  if (e.status === 429) return `Too many ${what === 'speech' ? 'read-alouds' : 'dictations'} just now.${wait(e.retryAfter)}`;
  if (e.status === 503) return `${what === 'speech' ? 'Read-aloud' : 'Dictation'} is busy or unavailable on this server right now.${wait(e.retryAfter)}`;
  if (e.status === 504) return 'The server took too long. Try again.';
  if (e.status === 0) return 'Could not reach the server. Check your connection and try again.';
  if (e.code === 'EMPTY_AUDIO') return 'No sound was recorded. Check that the right microphone is selected, then try again.';
  if (e.status === 413) return 'The recording is too long to transcribe: keep it shorter.';
  if (e.status === 401) return 'Your session has ended: sign in again.';
  return e.message || 'Something went wrong.';
}

/** A microphone error from getUserMedia or MediaRecorder, in words. */
export function microphoneErrorText(e: unknown): string {
  const name = (e as { name?: string } | null)?.name ?? '';
  if (name === 'NotAllowedError' || name === 'PermissionDeniedError' || name === 'SecurityError')
    return "Microphone access was denied. Allow this site to use the microphone (the icon in the address bar, or the browser's site settings), then try again.";
  if (name === 'NotFoundError' || name === 'DevicesNotFoundError' || name === 'OverconstrainedError')
    return 'No microphone was found. Connect one (or pick it in your system settings), then try again.';
  if (name === 'NotReadableError' || name === 'TrackStartError' || name === 'AbortError')
    return 'The microphone could not be started: another app may be using it.';
  if (name === 'NotSupportedError') return 'This browser cannot record audio here. Dictation needs a secure (https) page in a current browser.';
  return 'The microphone could not be used for dictation.';
}

/** Why this browser cannot dictate at all, or null when it can (mediaDevices exist only on secure pages). */
export function dictationUnsupported(env: { mediaDevices?: unknown; MediaRecorder?: unknown; isSecureContext?: boolean }): string | null {
  if (env.isSecureContext === false) return 'Dictation needs a secure (https) connection to this site.';
  if (!env.mediaDevices || !env.MediaRecorder) return 'This browser cannot record audio, so dictation is not available.';
  return null;
}

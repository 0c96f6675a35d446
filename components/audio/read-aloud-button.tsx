'use client';
// The read-aloud button of one answer: speaks it in the user's voice and speed (voice-prefs.ts), a spinner until the
// first sentence plays, a stop button while it plays; a failure is said in words beside it (out of credit links to
// the account page). Hidden when this server cannot speak.
import { useTranslations } from 'use-intl';
import Link from 'next/link';
import { useMemo } from 'react';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { useAudioOptions, useCsrfToken } from './audio-api.ts';
import { audioErrorText } from './audio-errors.ts';
import { SpeakerIcon, SquareIcon } from './icons.tsx';
import { clearReadAloudError, readAloud, stopReading, usePlayerView } from './speech-player.ts';
import { speakableText, speechPieces } from './speech-text.ts';
import { useVoicePrefs } from './voice-prefs.ts';

export function ReadAloudButton({ id, text }: { id: string; text: string }) {
  const t = useTranslations('audio');
  const te = useTranslations('audioErrors');
  const speech = useAudioOptions().data?.speech;
  const prefs = useVoicePrefs();
  const csrf = useCsrfToken();
  const view = usePlayerView(id);
  const spoken = useMemo(() => speakableText(text), [text]);
  if (!speech || !spoken) return null;

  const voice = prefs.voice && speech.voices.some((v) => v.id === prefs.voice) ? prefs.voice : undefined;
  const speed = Math.min(speech.maxSpeed, Math.max(speech.minSpeed, prefs.speed));
  const busy = view.phase !== 'idle';
  const error = view.error;
  const start = () => readAloud({ id, pieces: speechPieces(spoken, speech.maxCharacters), voice, speed, csrf });

  return (
    <>
      <IconButton
        size="sm"
        label={busy ? t('stopReading') : t('readAloud')}
        data-testid="read-aloud-button"
        data-state={view.phase}
        aria-pressed={busy}
        onClick={busy ? stopReading : start}
      >
        {view.phase === 'loading' ? <Spinner className="size-4" /> : view.phase === 'playing' ? <SquareIcon className="size-3.5" /> : <SpeakerIcon />}
      </IconButton>
      {error && (
        <span role="alert" data-testid="read-aloud-error" className="flex items-center gap-2 text-xs text-error">
          {audioErrorText(error, 'speech', te)}
          {(error.status === 402 || error.code === 'INSUFFICIENT_BALANCE') && (
            <Link href="/account" className="font-medium text-primary underline">
              {t('addCredit')}
            </Link>
          )}
          <button type="button" className="text-muted-foreground underline" onClick={() => clearReadAloudError(id)}>
            {t('dismiss')}
          </button>
        </span>
      )}
    </>
  );
}

'use client';
// The composer's microphone: press to dictate, press again to stop; the words land in the message box to edit before
// sending. While recording it shows the time; while transcribing, a spinner; a failure is said in words above it
// (a denied microphone says how to allow it). Hidden when this server cannot transcribe.
import { useTranslations } from 'use-intl';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { useAudioOptions } from './audio-api.ts';
import { MicIcon, SquareIcon } from './icons.tsx';
import { useDictation } from './use-dictation.ts';

const clock = (s: number) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;

export function DictationButton({ onText, disabled }: { onText: (text: string) => void; disabled?: boolean }) {
  const t = useTranslations('audio');
  const options = useAudioOptions().data?.dictation ?? undefined;
  const d = useDictation(onText, options);
  if (!options) return null;
  const recording = d.phase === 'recording';
  return (
    <span className="relative inline-flex items-center gap-1">
      {d.error && (
        <span
          role="alert"
          data-testid="dictation-error"
          className="absolute bottom-full left-0 z-20 mb-2 flex w-[min(22rem,calc(100vw-2rem))] items-start gap-2 rounded-lg border border-error/40 bg-background px-3 py-2 text-sm text-foreground shadow-md"
        >
          <span className="min-w-0 flex-1">{d.error}</span>
          <button type="button" className="text-xs text-muted-foreground underline" onClick={d.dismissError}>
            {t('dismiss')}
          </button>
        </span>
      )}
      <IconButton
        size="sm"
        label={recording ? t('stopDictating') : t('dictate')}
        data-testid="dictate-button"
        data-state={d.phase}
        aria-pressed={recording}
        disabled={disabled || d.phase === 'starting' || d.phase === 'transcribing'}
        onClick={recording ? d.stop : () => void d.start()}
        className={recording ? 'bg-error/10 text-error hover:text-error' : undefined}
      >
        {d.phase === 'transcribing' || d.phase === 'starting' ? <Spinner className="size-4" /> : recording ? <SquareIcon className="size-3.5" /> : <MicIcon />}
      </IconButton>
      {recording && (
        <span className="text-xs tabular-nums text-error" aria-live="off">
          <span className="sr-only">{t('recording')}</span>
          {clock(d.elapsed)}
        </span>
      )}
      {d.phase === 'transcribing' && (
        <span role="status" className="text-xs text-muted-foreground">
          {t('transcribing')}
        </span>
      )}
    </span>
  );
}

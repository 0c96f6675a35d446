// The polite screen-reader status of the answer: announced while generating and when it ends — only for what
// happens while the chat is open, not for the state of an answer that was finished before.
import { useTranslations } from 'use-intl';
import { useEffect, useState } from 'react';
import type { AppMessageStatus } from '@/lib/wire.ts';

export function GenerationStatus({ generating, outcome }: { generating: boolean; outcome: AppMessageStatus | undefined }) {
  const t = useTranslations('chat.status');
  const [watched, setWatched] = useState(false);
  useEffect(() => {
    if (generating) setWatched(true);
  }, [generating]);
  const ended = outcome === 'stopped' ? t('stopped') : outcome === 'error' ? t('failed') : t('complete');
  return (
    <p role="status" aria-live="polite" className="sr-only">
      {generating ? t('generating') : watched ? ended : ''}
    </p>
  );
}

// A failed answer or send, said plainly: out of credit (with the way to add some), rate limited (with a live
// countdown before Retry is offered), model at capacity or too slow, a model that cannot be reached (no countdown:
// waiting will not help; another model that works is named and the picker is a click away), or the error's code in
// the user's language (errorText; the server's own message only for a code the catalogue does not word). role="alert"
// so screen readers announce it.
import { useTranslations } from 'use-intl';
import { useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect } from 'react';
import { errorText, qk } from '@/components/api/client.ts';
import type { AppError } from '@/lib/wire.ts';
import { buttonClasses } from '@/components/ui/button.tsx';
import { formatWait, useCountdown } from '@/components/ui/use-countdown.ts';
import { useModels } from './chat-queries.ts';
import { AlertIcon } from './icons.tsx';
import { openModelPicker } from './open-model-picker.ts';

type Failure = Pick<AppError, 'status' | 'code' | 'message' | 'retryAfter'>;

interface Props {
  error: Failure;
  /** When the failure happened (ms since epoch): the retry-after countdown runs from there. */
  since: number;
  onRetry?: () => void;
  /** The model that failed, when known: not suggested as the way out. */
  modelId?: string | null;
}

/** The model's engine is down or not installed: a wait and a retry will not bring it back. */
const unreachable = (e: Failure) => e.code === 'ENGINE_DOWN' || e.code === 'ENGINE_UNAVAILABLE';

function headline(e: Failure, left: number, t: ReturnType<typeof useTranslations<'chat.error'>>): string {
  if (e.status === 402 || e.code === 'INSUFFICIENT_BALANCE') return t('noCredit');
  if (e.status === 429) return left > 0 ? t('rateLimitedWait', { wait: formatWait(left) }) : t('rateLimitedNow');
  if (unreachable(e)) return t('unreachable');
  if (e.status === 503) return left > 0 ? t('capacityWait', { wait: formatWait(left) }) : t('capacity');
  if (e.status === 504) return t('timeout');
  if (e.status === 0) return t('offline');
  return errorText(e.code, e.message) || t('generic');
}

export function ErrorBanner({ error, since, onRetry, modelId }: Props) {
  const down = unreachable(error);
  const waits = (error.status === 429 || error.status === 503) && !down && error.retryAfter;
  const left = useCountdown(waits ? since + error.retryAfter! * 1000 : null);
  const noCredit = error.status === 402 || error.code === 'INSUFFICIENT_BALANCE';
  const t = useTranslations('chat.error');
  const title = headline(error, left, t);
  // The code's words (a stored answer's error comes as the server wrote it) add detail under the plain-language
  // headline (never the raw body).
  const said = errorText(error.code, error.message);
  const detail = said && said !== title && (noCredit || [0, 429, 503, 504].includes(error.status)) ? said : '';
  // A model found down: the picker's list is read again so it marks the model, and one that works is named.
  const qc = useQueryClient();
  useEffect(() => {
    if (down) void qc.invalidateQueries({ queryKey: qk.models });
  }, [down, qc]);
  const models = useModels().data;
  const other = down
    ? (models?.find((m) => !m.unavailable && m.id !== modelId && m.isDefault) ?? models?.find((m) => !m.unavailable && m.id !== modelId))
    : undefined;
  return (
    <div
      role="alert"
      data-testid="error-banner"
      data-status={error.status}
      className="mt-2 flex flex-wrap items-start gap-x-3 gap-y-2 rounded-lg border border-error/40 bg-error/5 px-3 py-2.5 text-sm text-foreground"
    >
      <AlertIcon className="mt-0.5 size-4 shrink-0 text-error" />
      <div className="min-w-0 flex-1">
        <p className="font-medium">{title}</p>
        {detail && <p className="mt-0.5 break-words text-muted-foreground">{detail}</p>}
        {other && (
          <p className="mt-0.5 text-muted-foreground" data-testid="error-suggestion">
            {t('suggestion', { model: other.name })}
          </p>
        )}
      </div>
      {down && (
        <button type="button" onClick={openModelPicker} className={buttonClasses('primary', 'sm')} data-testid="error-pick-model">
          {t('pickModel')}
        </button>
      )}
      {noCredit ? (
        <Link href="/account" className={buttonClasses('primary', 'sm')}>
          {t('addCredit')}
        </Link>
      ) : (
        onRetry && (
          <button type="button" onClick={onRetry} disabled={left > 0} className={buttonClasses('secondary', 'sm')}>
            {left > 0 ? t('retryIn', { wait: formatWait(left) }) : t('retry')}
          </button>
        )
      )}
    </div>
  );
}

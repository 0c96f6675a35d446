// ‹ n/m › between the versions of a message (edits and regenerations are siblings in the tree).
import { useTranslations } from 'use-intl';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { ChevronLeftIcon, ChevronRightIcon } from './icons.tsx';

interface Props {
  index: number;
  count: number;
  onStep: (step: -1 | 1) => void;
  disabled?: boolean;
}

export function BranchNav({ index, count, onStep, disabled }: Props) {
  const t = useTranslations('chat.message');
  if (count < 2) return null;
  return (
    <div className="flex items-center text-xs text-muted-foreground" role="group" aria-label={t('versions')}>
      <IconButton size="sm" label={t('previous')} data-testid="branch-prev" disabled={disabled || index <= 1} onClick={() => onStep(-1)}>
        <ChevronLeftIcon />
      </IconButton>
      <span data-testid="branch-label" className="min-w-8 text-center tabular-nums" aria-hidden="true">
        {index}/{count}
      </span>
      <span className="sr-only">{t('versionOf', { index, count })}</span>
      <IconButton size="sm" label={t('next')} data-testid="branch-next" disabled={disabled || index >= count} onClick={() => onStep(1)}>
        <ChevronRightIcon />
      </IconButton>
    </div>
  );
}

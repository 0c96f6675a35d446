// The message box's switch between chat and image mode (pressed: the box's text is an image prompt).
// data-testid: image-mode-toggle (aria-pressed).
import { useTranslations } from 'use-intl';
import { cn } from '@/components/ui/cn.ts';
import { ImageIcon } from './image-icon.tsx';

interface Props {
  on: boolean;
  /** False while the image models load, or when this server makes no images (`why`). */
  available: boolean;
  why?: string | null;
  onToggle: () => void;
}

export function ImageModeToggle({ on, available, why, onToggle }: Props) {
  const t = useTranslations('images');
  const label = on ? t('modeOn') : t('modeOff');
  return (
    <button
      type="button"
      data-testid="image-mode-toggle"
      aria-pressed={on}
      aria-label={t('mode')}
      title={available ? label : (why ?? t('modeUnavailable'))}
      disabled={!available && !on}
      onClick={onToggle}
      className={cn(
        'inline-flex h-8 items-center gap-1.5 rounded-lg px-2 text-sm transition-colors disabled:cursor-not-allowed disabled:opacity-55',
        on ? 'bg-primary/10 font-medium text-primary' : 'text-muted-foreground hover:bg-accent hover:text-foreground',
      )}
    >
      <ImageIcon className="size-4" />
      <span className={on ? '' : 'sr-only sm:not-sr-only'}>{t('modeShort')}</span>
    </button>
  );
}

// The hint over the chat while files are dragged onto it, with the attachment limits.
import { useTranslations } from 'use-intl';
import type { AttachmentLimits } from '@/lib/wire.ts';
import { describeLimits } from './attachment-rules.ts';

export function DropOverlay({ limits }: { limits: AttachmentLimits | undefined }) {
  const t = useTranslations('chat.drop');
  const tAttach = useTranslations('attachments');
  return (
    <div
      aria-hidden="true"
      className="pointer-events-none absolute inset-2 z-40 flex flex-col items-center justify-center gap-1 rounded-2xl border-2 border-dashed border-primary bg-background/90 text-center"
    >
      <p className="text-lg font-semibold">{t('title')}</p>
      {limits && <p className="px-6 text-sm text-muted-foreground">{describeLimits(limits, tAttach)}</p>}
    </div>
  );
}

// What a model can do, as small badges: vision, reasoning, web search.
import { useTranslations } from 'use-intl';
import type { AppModel } from '@/lib/wire.ts';

export function CapabilityBadges({ model }: { model: AppModel }) {
  const t = useTranslations('chat.picker');
  const badges = [
    model.capabilities.vision && t('vision'),
    model.capabilities.reasoning && t('reasoning'),
    model.capabilities.webSearch && t('webSearch'),
  ].filter(Boolean) as string[];
  if (badges.length === 0) return null;
  return (
    <span className="flex flex-wrap gap-1">
      {badges.map((b) => (
        <span key={b} className="rounded bg-muted px-1.5 py-0.5 text-[11px] font-medium text-muted-foreground">
          {b}
        </span>
      ))}
    </span>
  );
}

// One model in the picker: name, the default mark, capability badges and prices per million tokens.
import { useLocale, useTranslations } from 'use-intl';
import type { AppModel } from '@/lib/wire.ts';
import { formatPrice } from './format.ts';
import { CapabilityBadges } from './capability-badges.tsx';
import { CheckIcon } from './icons.tsx';
import { DemoNotice } from './demo-notice.tsx';

interface Props {
  model: AppModel;
  isAdmin: boolean;
  id: string;
  selected: boolean;
  active: boolean;
  onPick: () => void;
  onHover: () => void;
}

export function ModelOption({ model, isAdmin, id, selected, active, onPick, onHover }: Props) {
  const t = useTranslations('chat.picker');
  const locale = useLocale();
  const price = (usd: number) => formatPrice(usd, locale) ?? t('free');
  return (
    <li
      id={id}
      role="option"
      aria-selected={selected}
      onClick={onPick}
      onPointerMove={onHover}
      className={`flex cursor-pointer items-start gap-2 rounded-lg px-2.5 py-2 ${active ? 'bg-muted' : ''}`}
    >
      <span className="mt-0.5 w-4 shrink-0 text-primary">{selected && <CheckIcon />}</span>
      <span className="min-w-0 flex-1">
        <span className="flex flex-wrap items-center gap-x-2">
          <span className="font-medium text-foreground">{model.name}</span>
          {model.isDefault && <span className="text-xs font-medium text-primary">{t('default')}</span>}
        </span>
        {model.unavailable && (
          <span className="mt-1 block text-xs font-medium text-error" data-testid="model-unreachable">
            {t('unreachableNow', { reason: model.unavailable })}
          </span>
        )}
        <span className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-muted-foreground">
          <CapabilityBadges model={model} />
          <span className="tabular-nums">
            {model.pricing.inputUsd === 0 && model.pricing.outputUsd === 0
              ? t('free')
              : t('prices', { in: price(model.pricing.inputUsd), out: price(model.pricing.outputUsd) })}
          </span>
        </span>
        <DemoNotice model={model} isAdmin={isAdmin} compact />
      </span>
    </li>
  );
}

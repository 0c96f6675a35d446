'use client';
// The image mode's settings above the message box: model (a demo says so, with what it does), style, aspect ratio and
// resolution (or size), how many variants, and the seed (empty: random). The price of one image is shown with them.
// data-testid: image-options, image-model, image-demo-note, image-style, image-aspect, image-resolution, image-size,
// image-variants, image-seed, image-price.
import { useTranslations } from 'use-intl';
import type { ReactNode, SelectHTMLAttributes } from 'react';
import { cn } from '@/components/ui/cn.ts';
import type { AppImageModel } from '@/lib/images/wire.ts';
import { type ImageChoices, perImageUsd, requestOf, seedOf } from './choices.ts';
import { useFormat } from '@/components/i18n/format.ts';

/** A description's first sentence (the rest is in the note's tooltip). */
const firstSentence = (text: string | null) => (text ? (/^.*?[.!?](\s|$)/.exec(text)?.[0] ?? text).trim() : '');

const CONTROL = 'h-8 w-full rounded-md border border-input bg-background px-2 text-sm text-foreground focus-visible:border-ring';

function Field({ id, label, children, className }: { id: string; label: string; children: ReactNode; className?: string }) {
  return (
    <div className={cn('flex min-w-24 flex-1 flex-col gap-0.5', className)}>
      <label htmlFor={id} className="text-xs font-medium text-muted-foreground">
        {label}
      </label>
      {children}
    </div>
  );
}

function Select({ id, ...rest }: SelectHTMLAttributes<HTMLSelectElement> & { id: string }) {
  return <select id={id} className={CONTROL} {...rest} />;
}

interface Props {
  models: AppImageModel[];
  styles: string[];
  model: AppImageModel;
  choices: ImageChoices;
  onChange: (patch: Partial<ImageChoices>) => void;
}

export function ImageOptions({ models, styles, model, choices, onChange }: Props) {
  const t = useTranslations('images');
  const fmt = useFormat();
  const shape = requestOf(model, choices, styles);
  const price = perImageUsd(model);
  const badSeed = seedOf(choices.seed) === null;
  return (
    <div data-testid="image-options" className="mx-auto mb-2 w-full max-w-3xl rounded-xl border border-border bg-muted/40 px-3 py-2">
      <div className="flex flex-wrap gap-2">
        <Field id="image-model" label={t('model')} className="min-w-48 flex-[3]">
          <Select id="image-model" data-testid="image-model" value={model.id} onChange={(e) => onChange({ model: e.target.value })}>
            {models.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
                {m.demo ? t('demoSuffix') : ''}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="image-style" label={t('style')}>
          <Select id="image-style" data-testid="image-style" value={shape.style ?? ''} onChange={(e) => onChange({ style: e.target.value || undefined })}>
            <option value="">{t('none')}</option>
            {styles.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </Select>
        </Field>
        {model.aspectRatios.length > 0 ? (
          <>
            <Field id="image-aspect" label={t('aspect')}>
              <Select id="image-aspect" data-testid="image-aspect" value={shape.aspectRatio} onChange={(e) => onChange({ aspect: e.target.value })}>
                {model.aspectRatios.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </Select>
            </Field>
            {model.resolutions.length > 1 && (
              <Field id="image-resolution" label={t('resolution')}>
                <Select
                  id="image-resolution"
                  data-testid="image-resolution"
                  value={shape.resolution}
                  onChange={(e) => onChange({ resolution: e.target.value })}
                >
                  {model.resolutions.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </Select>
              </Field>
            )}
          </>
        ) : (
          <Field id="image-size" label={t('size')}>
            <Select id="image-size" data-testid="image-size" value={`${shape.width}x${shape.height}`} onChange={(e) => onChange({ size: e.target.value })}>
              {model.sizes.map((s) => (
                <option key={s} value={s}>
                  {s.replace('x', '×')}
                </option>
              ))}
            </Select>
          </Field>
        )}
        <Field id="image-variants" label={t('variants')}>
          <Select id="image-variants" data-testid="image-variants" value={shape.variants} onChange={(e) => onChange({ variants: Number(e.target.value) })}>
            {Array.from({ length: model.maxVariants }, (_, i) => i + 1).map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="image-seed" label={t('seedLabel')}>
          <input
            id="image-seed"
            data-testid="image-seed"
            inputMode="numeric"
            placeholder={t('random')}
            value={choices.seed}
            aria-invalid={badSeed || undefined}
            onChange={(e) => onChange({ seed: e.target.value })}
            className={cn(CONTROL, badSeed && 'border-error')}
          />
        </Field>
      </div>
      <p className="mt-1.5 text-xs text-muted-foreground">
        {model.demo && (
          <span data-testid="image-demo-note" title={model.description ?? undefined}>
            <strong className="font-medium text-foreground">{t('isDemo', { model: model.name })}</strong>
            {t('notImageModel')}
            {firstSentence(model.description)}{' '}
          </span>
        )}
        {badSeed && <span className="text-error">{t('badSeed')}</span>}
        {price !== null && (
          <span data-testid="image-price">
            {shape.variants > 1
              ? t('priceMany', { price: fmt.usd(price), total: fmt.usd(price * shape.variants), count: shape.variants })
              : t('price', { price: fmt.usd(price) })}
          </span>
        )}
      </p>
    </div>
  );
}

'use client';
// The new-clip form: model, prompt, duration, aspect ratio, resolution and sound (each offered only as the model
// offers it), the price of exactly this shape from the server before anything is sent, and "Generate". A demo model
// is named as one, with its catalogue description, as /models does.
// data-testid: video-form, video-model, video-demo-note, video-prompt, video-duration, video-aspect, video-resolution,
// video-audio, video-quote (data-usd), video-submit, video-error.
import { useTranslations } from 'use-intl';
import { useState, type FormEvent } from 'react';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { cn } from '@/components/ui/cn.ts';
import { SelectField } from '@/components/ui/fields.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { type QuoteShape, useQueueVideo, useVideoQuote } from '@/components/video/queries.ts';
import type { AppVideoModel } from '@/lib/video/wire.ts';
import { useFormat } from '@/components/i18n/format.ts';

interface Choices {
  duration?: number;
  aspect?: string;
  resolution?: string;
  audio?: boolean;
}

/** The form's values for this model: what the user chose where the model offers it, else the model's default. */
function shapeFor(model: AppVideoModel, c: Choices): QuoteShape {
  return {
    model: model.id,
    duration: c.duration !== undefined && model.durations.includes(c.duration) ? c.duration : model.defaultDuration,
    aspect_ratio: c.aspect && model.aspectRatios.includes(c.aspect) ? c.aspect : model.defaultAspectRatio,
    resolution: c.resolution && model.resolutions.includes(c.resolution) ? c.resolution : model.defaultResolution,
    audio: model.audio && (c.audio ?? true),
  };
}

export function VideoForm({ models }: { models: AppVideoModel[] }) {
  const t = useTranslations('video');
  const fmt = useFormat();
  const [modelId, setModelId] = useState<string | null>(null);
  const [choices, setChoices] = useState<Choices>({});
  const [prompt, setPrompt] = useState('');
  const model = models.find((m) => m.id === modelId) ?? models.find((m) => m.isDefault) ?? models[0];
  const shape = shapeFor(model, choices);
  const quote = useVideoQuote(shape);
  const queue = useQueueVideo();
  const toast = useToast();
  const set = (patch: Choices) => setChoices((c) => ({ ...c, ...patch }));
  const tooLong = prompt.length > model.promptCharacterLimit;
  const blank = prompt.trim().length === 0;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (blank || tooLong || queue.isPending) return;
    queue.mutate(
      {
        model: shape.model,
        prompt: prompt.trim(),
        duration: shape.duration,
        aspect_ratio: shape.aspect_ratio,
        resolution: shape.resolution,
        ...(model.audio ? { audio: shape.audio } : {}),
      },
      { onSuccess: () => toast({ message: t('queued'), tone: 'success' }) },
    );
  };

  return (
    <form onSubmit={submit} className="flex flex-col gap-4 rounded-xl border border-border p-4" data-testid="video-form" noValidate>
      <SelectField
        id="video-model"
        label={t('model')}
        value={model.id}
        onChange={(e) => {
          setModelId(e.target.value);
          setChoices({});
        }}
        data-testid="video-model"
      >
        {models.map((m) => (
          <option key={m.id} value={m.id}>
            {m.demo && !/\bdemo\b/i.test(m.name) ? t('demoName', { name: m.name }) : m.name}
          </option>
        ))}
      </SelectField>
      {model.demo && (
        <Alert tone="info" title={t('demoTitle')} data-testid="video-demo-note">
          {model.description ?? t('demoBody')}
        </Alert>
      )}
      <div className="flex flex-col gap-1">
        <label htmlFor="video-prompt" className="text-sm font-medium">
          {t('prompt')}
        </label>
        <textarea
          id="video-prompt"
          value={prompt}
          onChange={(e) => setPrompt(e.target.value)}
          rows={3}
          placeholder={t('promptPlaceholder')}
          className="min-h-20 w-full resize-y rounded-lg border border-input bg-background px-3 py-2 text-foreground focus-visible:border-ring aria-invalid:border-error"
          aria-invalid={tooLong || undefined}
          aria-describedby="video-prompt-count"
          data-testid="video-prompt"
        />
        <p id="video-prompt-count" className={cn('text-xs', tooLong ? 'text-error' : 'text-muted-foreground')}>
          {t('characters', { count: fmt.count(prompt.length), limit: fmt.count(model.promptCharacterLimit) })}
        </p>
      </div>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <SelectField
          id="video-duration"
          label={t('duration')}
          value={shape.duration}
          onChange={(e) => set({ duration: Number(e.target.value) })}
          data-testid="video-duration"
        >
          {model.durations.map((d) => (
            <option key={d} value={d}>
              {t('durationOption', { seconds: d })}
            </option>
          ))}
        </SelectField>
        <SelectField
          id="video-aspect"
          label={t('aspect')}
          value={shape.aspect_ratio}
          onChange={(e) => set({ aspect: e.target.value })}
          data-testid="video-aspect"
        >
          {model.aspectRatios.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </SelectField>
        <SelectField
          id="video-resolution"
          label={t('resolution')}
          value={shape.resolution}
          onChange={(e) => set({ resolution: e.target.value })}
          data-testid="video-resolution"
        >
          {model.resolutions.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </SelectField>
      </div>
      {model.audio && (
        <label className="inline-flex items-center gap-2 text-sm">
          <input type="checkbox" checked={shape.audio} onChange={(e) => set({ audio: e.target.checked })} className="size-4" data-testid="video-audio" />
          {t('soundtrack')}
        </label>
      )}
      <div className="flex flex-col gap-3 border-t border-border pt-4 sm:flex-row sm:items-center sm:justify-between">
        <div className="text-sm" aria-live="polite">
          {quote.data ? (
            <p data-testid="video-quote" data-usd={quote.data.usd} className={cn(quote.isPlaceholderData && 'opacity-60')}>
              {t('costs')}
              <span className="font-semibold tabular-nums">{fmt.usd(quote.data.usd)}</span>
            </p>
          ) : quote.isError ? (
            <p className="text-error">{quote.error.message}</p>
          ) : (
            <p className="text-muted-foreground">{t('pricing')}</p>
          )}
          <p className="text-xs text-muted-foreground">{t('hold')}</p>
        </div>
        <Button type="submit" pending={queue.isPending} disabled={blank || tooLong} data-testid="video-submit">
          {t('generate')}
        </Button>
      </div>
      {queue.isError && (
        <Alert title={t('notQueued')} data-testid="video-error">
          {queue.error.message}
        </Alert>
      )}
    </form>
  );
}

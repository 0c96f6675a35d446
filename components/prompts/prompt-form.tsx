'use client';
// Adding or editing a prompt: a title and the text (`{{name}}` marks a place to fill in).
import { useTranslations } from 'use-intl';
import { useId, useState } from 'react';
import { AppApiError } from '@/components/api/client.ts';
import { Button } from '@/components/ui/button.tsx';
import type { PromptInput } from '@/lib/wire.ts';

interface Props {
  initial?: PromptInput;
  maxTitle: number;
  maxChars: number;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  testId: string;
  onSubmit: (p: PromptInput, done: () => void) => void;
  onCancel?: () => void;
}

const field = 'block w-full rounded-lg border border-input bg-background px-3 py-2 text-base placeholder:text-muted-foreground';

export function PromptForm({ initial, maxTitle, maxChars, submitLabel, pending, error, testId, onSubmit, onCancel }: Props) {
  const t = useTranslations('prompts');
  const tc = useTranslations('common');
  const [title, setTitle] = useState(initial?.title ?? '');
  const [content, setContent] = useState(initial?.content ?? '');
  const titleId = useId();
  const textId = useId();
  const ready = title.trim() !== '' && content.trim() !== '';
  return (
    <form
      className="flex flex-col gap-2"
      data-testid={testId}
      onSubmit={(e) => {
        e.preventDefault();
        if (!ready) return;
        onSubmit({ title, content }, () => {
          if (!initial) {
            setTitle('');
            setContent('');
          }
        });
      }}
    >
      <label htmlFor={titleId} className="text-sm font-medium">
        {t('formTitle')}
      </label>
      <input
        id={titleId}
        value={title}
        maxLength={maxTitle}
        onChange={(e) => setTitle(e.target.value)}
        data-testid="prompt-title-input"
        placeholder={t('titlePlaceholder')}
        className={field}
      />
      <label htmlFor={textId} className="text-sm font-medium">
        {t('formPrompt')}
      </label>
      <textarea
        id={textId}
        rows={4}
        value={content}
        maxLength={maxChars}
        onChange={(e) => setContent(e.target.value)}
        data-testid="prompt-content-input"
        placeholder={t('promptPlaceholder', { example: '{{text}}' })}
        className={`${field} resize-y`}
      />
      {error != null && (
        <p role="alert" className="text-sm text-error">
          {error instanceof AppApiError ? error.message : t('saveFailed')}
        </p>
      )}
      <div className="flex justify-end gap-2">
        {onCancel && (
          <Button type="button" size="sm" variant="ghost" onClick={onCancel}>
            {tc('cancel')}
          </Button>
        )}
        <Button type="submit" size="sm" pending={pending} disabled={!ready} data-testid="prompt-save">
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}

'use client';
// Adding or editing a prompt: a title and the text (`{{name}}` marks a place to fill in).
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
        Title
      </label>
      <input
        id={titleId}
        value={title}
        maxLength={maxTitle}
        onChange={(e) => setTitle(e.target.value)}
        data-testid="prompt-title-input"
        placeholder="e.g. Summarise"
        className={field}
      />
      <label htmlFor={textId} className="text-sm font-medium">
        Prompt
      </label>
      <textarea
        id={textId}
        rows={4}
        value={content}
        maxLength={maxChars}
        onChange={(e) => setContent(e.target.value)}
        data-testid="prompt-content-input"
        placeholder="e.g. Summarise {{text}} in three bullet points."
        className={`${field} resize-y`}
      />
      {error != null && (
        <p role="alert" className="text-sm text-error">
          {error instanceof AppApiError ? error.message : 'Could not save the prompt.'}
        </p>
      )}
      <div className="flex justify-end gap-2">
        {onCancel && (
          <Button type="button" size="sm" variant="ghost" onClick={onCancel}>
            Cancel
          </Button>
        )}
        <Button type="submit" size="sm" pending={pending} disabled={!ready} data-testid="prompt-save">
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}

'use client';
// Under a user message that asks to be remembered ("remember that …"): an offer to save the fact, which the user
// accepts or waves away; nothing is saved otherwise. Once saved (from this message), it says so.
// data-testid: memory-suggestion, memory-accept, memory-dismiss, memory-saved.
import { useTranslations } from 'use-intl';
import Link from 'next/link';
import { useState } from 'react';
import { AppApiError } from '@/components/api/client.ts';
import { Button } from '@/components/ui/button.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { dismiss, isDismissed } from './dismissed.ts';
import { MemoryIcon } from './icons.tsx';
import { useCreateMemory, useMemories } from './queries.ts';

export function MemorySuggestion({ messageId, fact }: { messageId: string; fact: string }) {
  const t = useTranslations('memoryChat');
  const list = useMemories();
  const create = useCreateMemory();
  const toast = useToast();
  const [dismissed, setDismissed] = useState(() => isDismissed(messageId));
  if (list.isPending || list.isError) return null;
  if (list.data.items.some((m) => m.sourceMessageId === messageId)) {
    return (
      <p data-testid="memory-saved" className="mt-1 flex items-center gap-1 text-xs text-muted-foreground">
        <MemoryIcon className="size-3.5" />
        {t('savedDot')}
        <Link href="/memory" className="font-medium text-primary underline-offset-4 hover:underline">
          {t('manage')}
        </Link>
      </p>
    );
  }
  if (dismissed) return null;
  return (
    <div
      role="group"
      aria-label={t('suggest')}
      data-testid="memory-suggestion"
      className="mt-1.5 flex max-w-[85%] flex-wrap items-center justify-end gap-2 rounded-xl border border-border px-3 py-2 text-sm"
    >
      <MemoryIcon className="size-4 shrink-0 text-muted-foreground" />
      <span className="min-w-0 break-words">
        {t('rememberBefore')}
        <span data-testid="memory-suggestion-text">{fact}</span>
        {t('rememberAfter')}
      </span>
      <span className="flex gap-1">
        <Button size="sm" variant="ghost" data-testid="memory-dismiss" onClick={() => (dismiss(messageId), setDismissed(true))}>
          {t('notNow')}
        </Button>
        <Button
          size="sm"
          data-testid="memory-accept"
          pending={create.isPending}
          onClick={() =>
            create.mutate(
              { content: fact, sourceMessageId: messageId },
              { onError: (e) => toast({ message: e instanceof AppApiError ? e.message : t('saveFailed'), tone: 'error' }) },
            )
          }
        >
          {t('save')}
        </Button>
      </span>
    </div>
  );
}

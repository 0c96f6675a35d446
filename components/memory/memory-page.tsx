'use client';
// The memory page (/memory): the facts the user chose to keep across chats. Add one, edit, switch off or delete
// each, and download them all. Chats use the enabled ones unless a chat's settings turn memory off.
// data-testid: memory-page, memory-new-input, memory-add, memory-list, memory-empty, memory-export (plus memory-item.tsx's).
import { useTranslations } from 'use-intl';
import { useId, useState } from 'react';
import { AppApiError } from '@/components/api/client.ts';
import { Button } from '@/components/ui/button.tsx';
import { DownloadIcon } from '@/components/ui/icons.tsx';
import { EmptyState, QueryContent } from '@/components/ui/query-state.tsx';
import { Section } from '@/components/usage/section.tsx';
import { MemoryItem } from './memory-item.tsx';
import { useCreateMemory, useMemories } from './queries.ts';

function AddMemory({ maxChars, full }: { maxChars: number; full: boolean }) {
  const t = useTranslations('memory');
  const [text, setText] = useState('');
  const create = useCreateMemory();
  const id = useId();
  const add = () => {
    if (!text.trim()) return;
    create.mutate({ content: text }, { onSuccess: () => setText('') });
  };
  return (
    <form
      className="flex flex-col gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        add();
      }}
    >
      <label htmlFor={id} className="text-sm font-medium">
        {t('newLabel')}
      </label>
      <textarea
        id={id}
        rows={2}
        maxLength={maxChars}
        value={text}
        disabled={full}
        data-testid="memory-new-input"
        placeholder={t('newPlaceholder')}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault();
            add();
          }
        }}
        className="block w-full resize-y rounded-lg border border-input bg-background px-3 py-2 text-base placeholder:text-muted-foreground"
      />
      {create.error && (
        <p role="alert" className="text-sm text-error">
          {create.error instanceof AppApiError ? create.error.message : t('saveFailed')}
        </p>
      )}
      <div className="flex justify-end">
        <Button type="submit" pending={create.isPending} disabled={!text.trim() || full} data-testid="memory-add">
          {t('save')}
        </Button>
      </div>
    </form>
  );
}

export function MemoryPage() {
  const t = useTranslations('memory');
  const list = useMemories();
  return (
    <div className="flex-1 overflow-y-auto" data-testid="memory-page">
      <div className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-6 sm:px-6 sm:py-8">
        <header className="flex flex-col gap-2">
          <h1 className="text-2xl font-semibold tracking-tight">{t('title')}</h1>
          <p className="text-sm text-muted-foreground">{t('intro')}</p>
        </header>
        <QueryContent query={list} loading={t('loading')} failed={t('failed')}>
          {(data) => (
            <>
              <Section id="memory-add" title={t('add')}>
                <AddMemory maxChars={data.maxChars} full={data.items.length >= data.max} />
              </Section>
              <Section
                id="memory-list"
                title={t('yours')}
                note={t('count', { count: data.items.length, max: data.max }) + (data.tokenBudget === 0 ? t('noneGiven') : '')}
              >
                {data.items.length === 0 ? (
                  <EmptyState testId="memory-empty">{t('none')}</EmptyState>
                ) : (
                  <ul className="flex flex-col gap-2" data-testid="memory-list">
                    {[...data.items].reverse().map((m) => (
                      <MemoryItem key={m.id} memory={m} maxChars={data.maxChars} />
                    ))}
                  </ul>
                )}
                <p>
                  <a
                    href="/api/app/memories/export"
                    download
                    data-testid="memory-export"
                    className="inline-flex items-center gap-1.5 text-sm font-medium text-primary underline-offset-4 hover:underline"
                  >
                    <DownloadIcon className="size-4" /> {t('download')}
                  </a>
                </p>
              </Section>
            </>
          )}
        </QueryContent>
      </div>
    </div>
  );
}

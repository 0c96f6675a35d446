'use client';
// The memory page (/memory): the facts the user chose to keep across chats. Add one, edit, switch off or delete
// each, and download them all. Chats use the enabled ones unless a chat's settings turn memory off.
// data-testid: memory-page, memory-new-input, memory-add, memory-list, memory-empty, memory-export (plus memory-item.tsx's).
import { useId, useState } from 'react';
import { AppApiError } from '@/components/api/client.ts';
import { Button } from '@/components/ui/button.tsx';
import { DownloadIcon } from '@/components/ui/icons.tsx';
import { EmptyState, QueryContent } from '@/components/ui/query-state.tsx';
import { Section } from '@/components/usage/section.tsx';
import { MemoryItem } from './memory-item.tsx';
import { useCreateMemory, useMemories } from './queries.ts';

function AddMemory({ maxChars, full }: { maxChars: number; full: boolean }) {
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
        Something chats should know about you
      </label>
      <textarea
        id={id}
        rows={2}
        maxLength={maxChars}
        value={text}
        disabled={full}
        data-testid="memory-new-input"
        placeholder="e.g. I prefer metric units"
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
          {create.error instanceof AppApiError ? create.error.message : 'Could not save the memory.'}
        </p>
      )}
      <div className="flex justify-end">
        <Button type="submit" pending={create.isPending} disabled={!text.trim() || full} data-testid="memory-add">
          Save to memory
        </Button>
      </div>
    </form>
  );
}

export function MemoryPage() {
  const list = useMemories();
  return (
    <div className="flex-1 overflow-y-auto" data-testid="memory-page">
      <div className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-6 sm:px-6 sm:py-8">
        <header className="flex flex-col gap-2">
          <h1 className="text-2xl font-semibold tracking-tight">Memory</h1>
          <p className="text-sm text-muted-foreground">
            Facts you asked Lagoon to remember. Your chats are given the ones switched on (the newest first, as many as fit), and an answer shows which it used.
            Nothing is remembered unless you save it here, from a message, or by accepting a suggestion when you write “remember that…”. A chat’s settings can
            turn memory off for that chat. Only you can see your memories.
          </p>
        </header>
        <QueryContent query={list} loading="Loading your memories" failed="Could not load your memories">
          {(data) => (
            <>
              <Section id="memory-add" title="Add a memory">
                <AddMemory maxChars={data.maxChars} full={data.items.length >= data.max} />
              </Section>
              <Section
                id="memory-list"
                title="Your memories"
                note={`${data.items.length} of at most ${data.max}.${data.tokenBudget === 0 ? ' This server gives chats no memories at the moment.' : ''}`}
              >
                {data.items.length === 0 ? (
                  <EmptyState testId="memory-empty">No memories yet.</EmptyState>
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
                    <DownloadIcon className="size-4" /> Download all memories (JSON)
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

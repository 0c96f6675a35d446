'use client';
// One memory on the memory page: its text (edited in place), whether chats use it, and delete (confirmed).
// data-testid: memory-item (data-id, data-enabled), memory-enabled, memory-edit, memory-edit-input, memory-edit-save,
// memory-delete.
import { useTranslations } from 'use-intl';
import { useId, useState } from 'react';
import { AppApiError } from '@/components/api/client.ts';
import { Button } from '@/components/ui/button.tsx';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { PencilIcon, TrashIcon } from '@/components/ui/icons.tsx';
import type { AppMemory } from '@/lib/wire.ts';
import { useDeleteMemory, useUpdateMemory } from './queries.ts';
import { useFormat } from '@/components/i18n/format.ts';

const errorText = (e: unknown, fallback: string) => (e instanceof AppApiError ? e.message : fallback);

export function MemoryItem({ memory, maxChars }: { memory: AppMemory; maxChars: number }) {
  const t = useTranslations('memory');
  const tc = useTranslations('common');
  const fmt = useFormat();
  const update = useUpdateMemory();
  const remove = useDeleteMemory();
  const [draft, setDraft] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const id = useId();
  const saveEdit = () => {
    if (draft === null || !draft.trim()) return;
    update.mutate({ id: memory.id, body: { content: draft } }, { onSuccess: () => setDraft(null) });
  };
  return (
    <li data-testid="memory-item" data-id={memory.id} data-enabled={memory.enabled} className="flex flex-col gap-2 rounded-xl border border-border p-3">
      {draft === null ? (
        <p className={memory.enabled ? 'break-words' : 'break-words text-muted-foreground'} data-testid="memory-text">
          {memory.content}
        </p>
      ) : (
        <div className="flex flex-col gap-2">
          <label htmlFor={id} className="sr-only">
            {t('edit')}
          </label>
          <textarea
            id={id}
            // Focus follows the Edit click that opened it.
            ref={(el) => el?.focus()}
            rows={3}
            maxLength={maxChars}
            value={draft}
            data-testid="memory-edit-input"
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') setDraft(null);
              if (e.key === 'Enter' && !e.shiftKey) {
                e.preventDefault();
                saveEdit();
              }
            }}
            className="block w-full resize-y rounded-lg border border-input bg-background px-3 py-2 text-base"
          />
          <div className="flex justify-end gap-2">
            <Button size="sm" variant="ghost" onClick={() => setDraft(null)}>
              {tc('cancel')}
            </Button>
            <Button size="sm" onClick={saveEdit} pending={update.isPending} disabled={!draft.trim()} data-testid="memory-edit-save">
              {tc('save')}
            </Button>
          </div>
        </div>
      )}
      {(update.error || remove.error) && (
        <p role="alert" className="text-sm text-error">
          {errorText(update.error ?? remove.error, t('tryAgain'))}
        </p>
      )}
      <div className="flex items-center justify-between gap-2 text-sm text-muted-foreground">
        <label className="flex items-center gap-2">
          <input
            type="checkbox"
            data-testid="memory-enabled"
            checked={memory.enabled}
            disabled={update.isPending}
            onChange={(e) => update.mutate({ id: memory.id, body: { enabled: e.target.checked } })}
            className="size-4 accent-[var(--primary)]"
          />
          {t('useInChats')}
        </label>
        <span className="flex items-center gap-1">
          <span className="text-xs">{fmt.date(memory.createdAt, {})}</span>
          <IconButton size="sm" label={t('edit')} data-testid="memory-edit" onClick={() => setDraft(memory.content)}>
            <PencilIcon className="size-4" />
          </IconButton>
          <IconButton size="sm" label={t('deleteLabel')} data-testid="memory-delete" onClick={() => setConfirming(true)}>
            <TrashIcon className="size-4" />
          </IconButton>
        </span>
      </div>
      <ConfirmDialog
        open={confirming}
        title={t('deleteTitle')}
        message={t('deleteMessage')}
        confirmLabel={tc('delete')}
        pending={remove.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => remove.mutate(memory.id, { onSuccess: () => setConfirming(false) })}
      />
    </li>
  );
}

'use client';
// One memory on the memory page: its text (edited in place), whether chats use it, and delete (confirmed).
// data-testid: memory-item (data-id, data-enabled), memory-enabled, memory-edit, memory-edit-input, memory-edit-save,
// memory-delete.
import { useId, useState } from 'react';
import { AppApiError } from '@/components/api/client.ts';
import { Button } from '@/components/ui/button.tsx';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { PencilIcon, TrashIcon } from '@/components/ui/icons.tsx';
import type { AppMemory } from '@/lib/wire.ts';
import { useDeleteMemory, useUpdateMemory } from './queries.ts';

const errorText = (e: unknown) => (e instanceof AppApiError ? e.message : 'Something went wrong. Try again.');

export function MemoryItem({ memory, maxChars }: { memory: AppMemory; maxChars: number }) {
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
            Edit memory
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
              Cancel
            </Button>
            <Button size="sm" onClick={saveEdit} pending={update.isPending} disabled={!draft.trim()} data-testid="memory-edit-save">
              Save
            </Button>
          </div>
        </div>
      )}
      {(update.error || remove.error) && (
        <p role="alert" className="text-sm text-error">
          {errorText(update.error ?? remove.error)}
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
          Use in chats
        </label>
        <span className="flex items-center gap-1">
          <span className="text-xs">{new Date(memory.createdAt).toLocaleDateString()}</span>
          <IconButton size="sm" label="Edit memory" data-testid="memory-edit" onClick={() => setDraft(memory.content)}>
            <PencilIcon className="size-4" />
          </IconButton>
          <IconButton size="sm" label="Delete memory" data-testid="memory-delete" onClick={() => setConfirming(true)}>
            <TrashIcon className="size-4" />
          </IconButton>
        </span>
      </div>
      <ConfirmDialog
        open={confirming}
        title="Delete this memory?"
        message="Chats will no longer be given it. Answers already written keep showing what they were given."
        confirmLabel="Delete"
        pending={remove.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => remove.mutate(memory.id, { onSuccess: () => setConfirming(false) })}
      />
    </li>
  );
}

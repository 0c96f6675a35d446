'use client';
// "Remember this" on any message: the text in an editor (cut to what a memory may hold), saved as a memory when the
// user confirms. data-testid: remember-button, remember-dialog, remember-input, remember-save.
import { useTranslations } from 'use-intl';
import { useId, useState } from 'react';
import { AppApiError } from '@/components/api/client.ts';
import { Button } from '@/components/ui/button.tsx';
import { Dialog } from '@/components/ui/dialog.tsx';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { MemoryIcon } from './icons.tsx';
import { useCreateMemory } from './queries.ts';

/** What a memory may hold (the server's MAX_MEMORY_CHARS, also in GET /memories). */
const MAX_CHARS = 1000;

export function RememberButton({ messageId, text }: { messageId: string; text: string }) {
  const t = useTranslations('memoryChat');
  const [draft, setDraft] = useState<string | null>(null);
  const create = useCreateMemory();
  const toast = useToast();
  const id = useId();
  const close = () => {
    setDraft(null);
    create.reset();
  };
  const save = () => {
    if (!draft?.trim()) return;
    create.mutate(
      { content: draft, sourceMessageId: messageId },
      {
        onSuccess: () => {
          close();
          toast({ message: t('saved'), tone: 'success' });
        },
      },
    );
  };
  return (
    <>
      <IconButton size="sm" label={t('remember')} data-testid="remember-button" onClick={() => setDraft(text.replace(/\s+/g, ' ').trim().slice(0, MAX_CHARS))}>
        <MemoryIcon />
      </IconButton>
      {/* Mounted only while open, so a transcript holds one dialog, not one per message. */}
      {draft !== null && (
        <Dialog
          open
          onClose={close}
          title={t('remember')}
          description={t('rememberNote')}
          testId="remember-dialog"
          footer={
            <>
              <Button variant="secondary" onClick={close}>
                {t('cancel')}
              </Button>
              <Button onClick={save} pending={create.isPending} disabled={!draft?.trim()} data-testid="remember-save">
                {t('save')}
              </Button>
            </>
          }
        >
          <label htmlFor={id} className="sr-only">
            {t('memory')}
          </label>
          <textarea
            id={id}
            data-testid="remember-input"
            rows={4}
            maxLength={MAX_CHARS}
            value={draft ?? ''}
            onChange={(e) => setDraft(e.target.value)}
            className="block w-full resize-y rounded-lg border border-input bg-background px-3 py-2 text-base"
          />
          {create.error && (
            <p role="alert" className="text-sm text-error">
              {create.error instanceof AppApiError ? create.error.message : t('saveFailed')}
            </p>
          )}
        </Dialog>
      )}
    </>
  );
}

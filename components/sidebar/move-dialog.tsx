'use client';
// "Move to folder…": the keyboard's way to file a chat (dragging it onto a folder is the pointer's).
// data-testid: move-dialog, move-folder (the select), move-save.
import { useTranslations } from 'use-intl';
import { useId, useState } from 'react';
import { Button } from '@/components/ui/button.tsx';
import { Dialog } from '@/components/ui/dialog.tsx';
import type { AppConversation } from '@/lib/wire.ts';
import { useFolders, useOrganise } from '@/components/sidebar/use-organise.ts';

export function MoveDialog({ conversation, onClose }: { conversation: AppConversation; onClose: () => void }) {
  const t = useTranslations('sidebar');
  const folders = useFolders();
  const organise = useOrganise();
  const [target, setTarget] = useState(conversation.folderId ?? '');
  const id = useId();
  const items = folders.data?.items ?? [];
  return (
    <Dialog
      open
      onClose={onClose}
      title={t('moveTitle')}
      description={conversation.title}
      testId="move-dialog"
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {t('cancel')}
          </Button>
          <Button
            data-testid="move-save"
            pending={organise.isPending}
            onClick={() => organise.mutate({ id: conversation.id, change: { folderId: target || null } }, { onSuccess: onClose })}
          >
            {t('move')}
          </Button>
        </>
      }
    >
      <label htmlFor={id} className="text-sm font-medium">
        {t('folder')}
      </label>
      <select
        id={id}
        data-testid="move-folder"
        value={target}
        onChange={(e) => setTarget(e.target.value)}
        className="h-10 w-full rounded-lg border border-input bg-background px-3"
      >
        <option value="">{t('noFolder')}</option>
        {items.map((f) => (
          <option key={f.id} value={f.id}>
            {f.name}
          </option>
        ))}
      </select>
      {items.length === 0 && folders.isSuccess && <p className="text-sm text-muted-foreground">{t('noFolders')}</p>}
    </Dialog>
  );
}

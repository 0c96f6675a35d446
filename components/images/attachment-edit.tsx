'use client';
// "Edit this image" beside a picture attached to a chat message: opens the image editor on the picture's bytes (its
// data: URL); the edited image joins the gallery, and a toast links there. Offered disabled, saying why, when the
// server has no edit model.
// data-testid: attachment-edit.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslations } from 'use-intl';
import { qk } from '@/components/api/client.ts';
import { EditIcon } from '@/components/chat/icons.tsx';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { ImageEditor } from './image-editor.tsx';
import { imageKeys, useImageModels } from './queries.ts';

export function AttachmentEdit({ dataUrl, name }: { dataUrl: string; name: string }) {
  const t = useTranslations('imageEditor');
  const qc = useQueryClient();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const models = useImageModels().data;
  const editor = models?.models.find((m) => m.kind === 'edit' && m.isDefault);
  const why = models && !editor ? (models.unavailable ?? t('noModel')) : null;
  return (
    <>
      <IconButton
        size="sm"
        label={why ? `${t('edit')} (${name}): ${why}` : `${t('edit')} (${name})`}
        title={why ?? t('edit')}
        data-testid="attachment-edit"
        disabled={!editor}
        onClick={() => setOpen(true)}
      >
        <EditIcon />
      </IconButton>
      {open && editor && (
        <ImageEditor
          source={{ image: dataUrl, url: dataUrl }}
          model={editor}
          onClose={() => setOpen(false)}
          onDone={() => {
            setOpen(false);
            void qc.invalidateQueries({ queryKey: imageKeys.gallery });
            void qc.invalidateQueries({ queryKey: qk.account });
            toast({ message: t('done'), tone: 'success' });
          }}
        />
      )}
    </>
  );
}

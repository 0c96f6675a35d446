'use client';
// The gallery (/images): every image the user made in the image mode, newest first, in pages. Each has its actions:
// download, copy, vary, upscale, background removal and "Edit this image" (the results join the gallery, not a chat), delete, and a
// link to the chat it was made in. New images are made in a chat's image mode.
// data-testid: gallery-page, gallery-empty, gallery-item (data-image-id), gallery-chat-link, gallery-more.
import { useTranslations } from 'use-intl';
import Link from 'next/link';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { AppApiError, call, qk } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button, buttonClasses } from '@/components/ui/button.tsx';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import type { AppImage } from '@/lib/images/wire.ts';
import { IMAGE_JOB_ROUTE, type ImageActions, ImageActionsContext, type ImageJob } from './image-actions.ts';
import { ImageCard } from './image-card.tsx';
import { ImageEditor } from './image-editor.tsx';
import { imageKeys, useDeleteImage, useGallery, useImageModels } from './queries.ts';
import { useFormat } from '@/components/i18n/format.ts';

const DONE = { vary: 'doneVary', upscale: 'doneUpscale', 'remove-background': 'doneCutout' } as const satisfies Record<ImageJob, string>;

export function GalleryPage() {
  const t = useTranslations('images');
  const fmt = useFormat();
  const qc = useQueryClient();
  const toast = useToast();
  const gallery = useGallery();
  const models = useImageModels().data?.models;
  const remove = useDeleteImage();
  const [running, setRunning] = useState<ImageActions['running']>(null);
  const [deleting, setDeleting] = useState<AppImage | null>(null);
  const upscaler = models?.find((m) => m.kind === 'upscale' && m.isDefault);
  const remover = models?.find((m) => m.kind === 'background-remove' && m.isDefault);
  const editor = models?.find((m) => m.kind === 'edit' && m.isDefault);
  const [editing, setEditing] = useState<AppImage | null>(null);
  const tEdit = useTranslations('imageEditor');
  const images = useMemo(() => gallery.data?.pages.flatMap((p) => p.images) ?? [], [gallery.data]);

  const actions = useMemo<ImageActions>(
    () => ({
      running,
      blocked: false,
      run: (job, image) => {
        setRunning({ id: image.id, job });
        call(IMAGE_JOB_ROUTE[job], { params: { id: image.id }, body: {} })
          .then(() => toast({ message: t(DONE[job]), tone: 'success' }))
          .catch((e: unknown) => toast({ message: e instanceof AppApiError ? e.message : t('failed'), tone: 'error' }))
          .finally(() => {
            setRunning(null);
            void qc.invalidateQueries({ queryKey: imageKeys.gallery });
            void qc.invalidateQueries({ queryKey: qk.account });
          });
      },
      remove: (image) => setDeleting(image),
      edit: (image) => setEditing(image),
    }),
    [running, qc, toast, t],
  );

  return (
    <div className="flex-1 overflow-y-auto" data-testid="gallery-page">
      <div className="mx-auto flex max-w-5xl flex-col gap-6 px-4 py-6 sm:px-6 sm:py-8">
        <header>
          <h1 className="text-2xl font-semibold tracking-tight">{t('title')}</h1>
          <p className="mt-1 text-sm text-muted-foreground">
            {t('intro')}{' '}
            <Link href="/" className="font-medium text-primary underline underline-offset-4">
              {t('makeNew')}
            </Link>{' '}
            {t('bySwitching')}
          </p>
        </header>
        {gallery.isPending ? (
          <div className="flex justify-center py-8 text-muted-foreground">
            <Spinner label={t('loading')} className="size-6" />
          </div>
        ) : gallery.isError ? (
          <Alert
            title={t('loadFailed')}
            action={
              <Button size="sm" variant="secondary" onClick={() => void gallery.refetch()} pending={gallery.isFetching}>
                {t('retry')}
              </Button>
            }
          >
            {gallery.error.message}
          </Alert>
        ) : images.length === 0 ? (
          <Alert tone="info" title={t('emptyTitle')} data-testid="gallery-empty">
            {t('emptyBody')}
          </Alert>
        ) : (
          <ImageActionsContext.Provider value={actions}>
            <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3">
              {images.map((i) => (
                <li key={i.id} data-testid="gallery-item" data-image-id={i.id} className="flex min-w-0 flex-col gap-1">
                  <ImageCard
                    id={i.id}
                    url={i.url}
                    downloadUrl={i.downloadUrl}
                    image={i}
                    alt={i.prompt || t('image')}
                    upscaler={upscaler}
                    remover={remover}
                    editor={editor}
                  />
                  <p className="line-clamp-2 text-sm break-words" title={i.prompt}>
                    {i.prompt}
                  </p>
                  <p className="text-xs text-muted-foreground">
                    {i.modelName} · {fmt.dateTime(i.createdAt)}
                    {i.conversationId && (
                      <>
                        {' · '}
                        <Link href={`/c/${i.conversationId}`} data-testid="gallery-chat-link" className="text-primary underline underline-offset-4">
                          {t('openChat')}
                        </Link>
                      </>
                    )}
                  </p>
                </li>
              ))}
            </ul>
            {gallery.hasNextPage && (
              <div className="flex justify-center">
                <button
                  type="button"
                  data-testid="gallery-more"
                  className={buttonClasses('secondary', 'md')}
                  disabled={gallery.isFetchingNextPage}
                  onClick={() => void gallery.fetchNextPage()}
                >
                  {gallery.isFetchingNextPage ? <Spinner className="size-4" /> : null}
                  {t('showMore')}
                </button>
              </div>
            )}
          </ImageActionsContext.Provider>
        )}
      </div>
      {editing && editor && (
        <ImageEditor
          source={{ sourceId: editing.id, url: editing.url }}
          model={editor}
          onClose={() => setEditing(null)}
          onDone={() => {
            setEditing(null);
            toast({ message: tEdit('done'), tone: 'success' });
            void qc.invalidateQueries({ queryKey: imageKeys.gallery });
            void qc.invalidateQueries({ queryKey: qk.account });
          }}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t('deleteTitle')}
        message={t('deleteBody')}
        confirmLabel={t('delete')}
        pending={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => {
          if (!deleting) return;
          remove.mutate(deleting.id, {
            onSuccess: () => setDeleting(null),
            onError: (e) => toast({ message: t('deleteFailed', { error: e.message }), tone: 'error' }),
          });
        }}
      />
    </div>
  );
}

'use client';
// The gallery (/images): every image the user made in the image mode, newest first, in pages. Each has its actions:
// download, copy, vary, upscale, background removal and "Edit this image" (the results join the gallery, not a chat), delete, and a
// link to the chat it was made in. New images are made in a chat's image mode.
// data-testid: gallery-page, gallery-empty, gallery-item (data-image-id), gallery-chat-link, gallery-more.
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
import { useTranslations } from 'use-intl';
import { imageKeys, useDeleteImage, useGallery, useImageModels } from './queries.ts';

const DONE: Record<ImageJob, string> = { vary: 'A variation', upscale: 'The upscaled image', 'remove-background': 'The cut-out' };

export function GalleryPage() {
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
          .then(() => toast({ message: `${DONE[job]} is at the top of the gallery`, tone: 'success' }))
          .catch((e: unknown) => toast({ message: e instanceof AppApiError ? e.message : 'Something went wrong.', tone: 'error' }))
          .finally(() => {
            setRunning(null);
            void qc.invalidateQueries({ queryKey: imageKeys.gallery });
            void qc.invalidateQueries({ queryKey: qk.account });
          });
      },
      remove: (image) => setDeleting(image),
      edit: (image) => setEditing(image),
    }),
    [running, qc, toast],
  );

  return (
    <div className="flex-1 overflow-y-auto" data-testid="gallery-page">
      <div className="mx-auto flex max-w-5xl flex-col gap-6 px-4 py-6 sm:px-6 sm:py-8">
        <header>
          <h1 className="text-2xl font-semibold tracking-tight">Images</h1>
          <p className="mt-1 text-sm text-muted-foreground">
            Everything you made in a chat&apos;s image mode; only you can see these.{' '}
            <Link href="/" className="font-medium text-primary underline underline-offset-4">
              Make a new image
            </Link>{' '}
            by switching a chat to Image mode.
          </p>
        </header>
        {gallery.isPending ? (
          <div className="flex justify-center py-8 text-muted-foreground">
            <Spinner label="Loading your images" className="size-6" />
          </div>
        ) : gallery.isError ? (
          <Alert
            title="Could not load your images"
            action={
              <Button size="sm" variant="secondary" onClick={() => void gallery.refetch()} pending={gallery.isFetching}>
                Retry
              </Button>
            }
          >
            {gallery.error.message}
          </Alert>
        ) : images.length === 0 ? (
          <Alert tone="info" title="No images yet" data-testid="gallery-empty">
            Switch a chat to Image mode (beside the message box) and describe a picture.
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
                    alt={i.prompt || 'Image'}
                    upscaler={upscaler}
                    remover={remover}
                    editor={editor}
                  />
                  <p className="line-clamp-2 text-sm break-words" title={i.prompt}>
                    {i.prompt}
                  </p>
                  <p className="text-xs text-muted-foreground">
                    {i.modelName} · {new Date(i.createdAt).toLocaleString()}
                    {i.conversationId && (
                      <>
                        {' · '}
                        <Link href={`/c/${i.conversationId}`} data-testid="gallery-chat-link" className="text-primary underline underline-offset-4">
                          Open the chat
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
                  Show more
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
        title="Delete this image?"
        message="It is removed from the gallery and from the chat it was made in. This cannot be undone."
        confirmLabel="Delete"
        pending={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => {
          if (!deleting) return;
          remove.mutate(deleting.id, {
            onSuccess: () => setDeleting(null),
            onError: (e) => toast({ message: `Could not delete the image: ${e.message}`, tone: 'error' }),
          });
        }}
      />
    </div>
  );
}

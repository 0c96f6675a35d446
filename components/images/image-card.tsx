'use client';
// One image with its actions: download, copy (as PNG), vary (same prompt, new seed), upscale 2×, remove the
// background, and delete where the gallery allows it. A demo model's image says so. Only download and copy need no
// metadata; the rest wait for it (a just-listed image of a message still being made).
// data-testid: image-card (data-image-id), image-demo, image-download, image-copy, image-vary, image-upscale,
// image-remove-bg, image-edit, image-delete.
import { useEffect, useState } from 'react';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { CheckIcon, DownloadIcon, Icon, TrashIcon } from '@/components/ui/icons.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { CopyIcon, EditIcon } from '@/components/chat/icons.tsx';
import { useTranslations } from 'use-intl';
import type { AppImage, AppImageModel } from '@/lib/images/wire.ts';
import { copyImage } from './clipboard.ts';
import { type ImageJob, useImageActions } from './image-actions.ts';

const VaryIcon = () => (
  <Icon className="size-4">
    <rect x="3" y="3" width="18" height="18" rx="3" />
    <circle cx="8.5" cy="8.5" r="1.2" />
    <circle cx="15.5" cy="15.5" r="1.2" />
    <circle cx="15.5" cy="8.5" r="1.2" />
    <circle cx="8.5" cy="15.5" r="1.2" />
  </Icon>
);
const UpscaleIcon = () => (
  <Icon className="size-4">
    <path d="M14 4h6v6M10 20H4v-6M20 4l-7 7M4 20l7-7" />
  </Icon>
);
const CutIcon = () => (
  <Icon className="size-4">
    <circle cx="6" cy="6" r="2.5" />
    <circle cx="6" cy="18" r="2.5" />
    <path d="M8 7.5L20 18M8 16.5L20 6" />
  </Icon>
);

export interface ImageCardProps {
  /** The image's id and file, always known; its metadata once listed. */
  id: string;
  url: string;
  downloadUrl: string;
  image?: AppImage;
  alt: string;
  /** The default upscaler and background remover, to name them (a demo says so). */
  upscaler?: AppImageModel;
  remover?: AppImageModel;
  /** The default edit model, for "Edit this image" (offered disabled, saying why, when there is none). */
  editor?: AppImageModel;
}

export function ImageCard({ id, url, downloadUrl, image, alt, upscaler, remover, editor }: ImageCardProps) {
  const t = useTranslations('images');
  const actions = useImageActions();
  const tEdit = useTranslations('imageEditor');
  const toast = useToast();
  const [copied, setCopied] = useState(false);
  const [broken, setBroken] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);

  const copy = async () => {
    try {
      await copyImage(url, { cannotCopy: t('cannotCopy'), unreadable: (status) => t('unreadable', { status }), notConverted: t('notConverted') });
      setCopied(true);
    } catch (e) {
      toast({ message: t('copyFailed', { error: (e as Error).message }), tone: 'error' });
    }
  };
  const running = actions?.running;
  const disabled = !image || !actions || !!running || actions.blocked;
  /** `why`: the reason this job cannot work on this image; the button is then offered disabled, saying so. */
  const job = (j: ImageJob, label: string, title: string, icon: React.ReactNode, testId: string, why?: string) =>
    actions && (
      <IconButton
        size="sm"
        label={why ? t('jobBlocked', { label, why }) : label}
        title={why ?? title}
        data-testid={testId}
        disabled={disabled || !!why}
        onClick={() => image && actions.run(j, image)}
      >
        {running?.id === id && running.job === j ? <Spinner className="size-4" /> : icon}
      </IconButton>
    );
  const canVary = image && (image.action === 'generate' || image.action === 'vary');
  const size = image ? `${image.width}×${image.height}` : '';

  return (
    <figure data-testid="image-card" data-image-id={id} className="flex min-w-0 flex-col gap-1">
      <div className="relative overflow-hidden rounded-xl border border-border bg-muted">
        {broken ? (
          <p className="flex aspect-square items-center justify-center p-4 text-center text-sm text-muted-foreground">{t('deleted')}</p>
        ) : (
          // A plain <img>: the app's own file behind the session cookie, shown as it is (no optimiser in between).
          <img
            src={url}
            alt={alt}
            width={image?.width}
            height={image?.height}
            loading="lazy"
            decoding="async"
            onError={() => setBroken(true)}
            className="block h-auto w-full bg-[repeating-conic-gradient(#8882_0_25%,transparent_0_50%)] bg-[length:16px_16px] object-contain"
          />
        )}
        {image?.demo && (
          <span
            data-testid="image-demo"
            title={t('demoTitle', { model: image.modelName })}
            className="absolute top-2 left-2 rounded-md bg-background/85 px-1.5 py-0.5 text-xs font-medium text-foreground"
          >
            {t('demo')}
          </span>
        )}
      </div>
      <figcaption className="flex flex-wrap items-center gap-x-0.5 text-muted-foreground">
        <a
          href={downloadUrl}
          download
          aria-label={t('download')}
          title={t('download')}
          data-testid="image-download"
          className="inline-flex size-8 items-center justify-center rounded-lg hover:bg-accent hover:text-foreground"
        >
          <DownloadIcon className="size-4" />
        </a>
        <IconButton size="sm" label={copied ? t('copied') : t('copy')} data-testid="image-copy" onClick={copy} disabled={broken}>
          {copied ? <CheckIcon className="size-4" /> : <CopyIcon />}
        </IconButton>
        {canVary && job('vary', t('vary'), t('varyTitle'), <VaryIcon />, 'image-vary')}
        {job('upscale', t('upscale'), upscaler ? t('upscaleTitleWith', { model: upscaler.name }) : t('upscaleTitle'), <UpscaleIcon />, 'image-upscale')}
        {job(
          'remove-background',
          t('removeBg'),
          remover ? t(remover.demo ? 'removeBgTitleDemo' : 'removeBgTitleWith', { model: remover.name }) : t('removeBgTitle'),
          <CutIcon />,
          'image-remove-bg',
          // The demo remover cuts out flat backgrounds only (it refuses others), and the demo generator's pictures
          // have none: offering it there could only fail.
          remover?.demo && image?.demo ? t('removeBgNotDemo', { model: remover.name }) : undefined,
        )}
        {actions?.edit && (
          <IconButton
            size="sm"
            label={editor ? tEdit('edit') : `${tEdit('edit')}: ${tEdit('noModel')}`}
            title={editor ? `${tEdit('edit')} (${editor.name})` : tEdit('noModel')}
            data-testid="image-edit"
            disabled={disabled || !editor}
            onClick={() => image && actions.edit?.(image)}
          >
            <EditIcon />
          </IconButton>
        )}
        {actions?.remove && image && (
          <IconButton size="sm" label={t('deleteImage')} data-testid="image-delete" disabled={!!running} onClick={() => actions.remove?.(image)}>
            <TrashIcon className="size-4" />
          </IconButton>
        )}
        {image && (
          <span className="ml-1 truncate text-xs tabular-nums" title={image.seed !== null ? t('seed', { seed: String(image.seed) }) : undefined}>
            {size}
            {image.seed !== null ? t('seedSuffix', { seed: String(image.seed) }) : ''}
          </span>
        )}
      </figcaption>
    </figure>
  );
}

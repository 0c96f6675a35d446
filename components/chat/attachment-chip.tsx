// One attachment as a chip: thumbnail for images, a file icon otherwise, the sanitised name (as text) and size,
// and a remove button while it is still in the composer.
import type { ReactNode } from 'react';
import { useTranslations } from 'use-intl';
import { displayFileName, formatBytes } from './format.ts';
import { FileIcon, XIcon } from './icons.tsx';

interface Props {
  name: string;
  size: number;
  kind: 'image' | 'document';
  /** A blob: or data:image URL; only ever used as an <img> source. */
  previewUrl?: string;
  onRemove?: () => void;
  /** Another action for this attachment ("Edit this image" in a sent message). */
  extra?: ReactNode;
}

export function AttachmentChip({ name, size, kind, previewUrl, onRemove, extra }: Props) {
  const t = useTranslations('chat.message');
  const shown = displayFileName(name, 32);
  return (
    <li
      data-testid="attachment-chip"
      className="flex max-w-full min-w-0 items-center gap-2 rounded-lg border border-border bg-background py-1 pr-1 pl-1 text-sm text-foreground"
    >
      {kind === 'image' && previewUrl ? (
        <img src={previewUrl} alt="" className="h-8 w-8 shrink-0 rounded object-cover" />
      ) : (
        <span className="flex h-8 w-8 shrink-0 items-center justify-center rounded bg-muted text-muted-foreground">
          <FileIcon />
        </span>
      )}
      <span className="min-w-0">
        <span className="block truncate font-medium" title={shown}>
          {shown}
        </span>
        <span className="block text-xs text-muted-foreground">{formatBytes(size)}</span>
      </span>
      {extra}
      {onRemove && (
        <button
          type="button"
          onClick={onRemove}
          aria-label={t('removeFile', { name: shown })}
          title={t('remove')}
          className="ml-1 inline-flex h-7 w-7 shrink-0 items-center justify-center rounded-md text-muted-foreground hover:bg-accent"
        >
          <XIcon className="size-3.5" />
        </button>
      )}
    </li>
  );
}

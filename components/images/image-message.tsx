'use client';
// An image message in the chat: an assistant message whose attachments are images the image mode made (their ids are
// image ids). Its images show as they are made: while the message is still being made, the chat's images are re-read
// (useChatImages polls) and every one of this message joins the grid, with a place held for each variant to come.
// Below: the caption, an error or "Stopped", and a footer with versions, the model and the cost.
// data-testid: image-message (data-status), image-pending, image-error.
import { useLocale, useTranslations } from 'use-intl';
import { memo, useEffect, useMemo } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Spinner } from '@/components/ui/spinner.tsx';
import { BranchNav } from '@/components/chat/branch-nav.tsx';
import { useChatActions } from '@/components/chat/chat-context.ts';
import { useLiveAnswer } from '@/components/chat/live-store.ts';
import { formatCharge } from '@/components/chat/format.ts';
import type { AppMessage } from '@/lib/wire.ts';
import type { AppImage } from '@/lib/images/wire.ts';
import { ImageCard } from './image-card.tsx';
import { imageKeys, useChatImages, useImageModels } from './queries.ts';

/** Whether a chat message is an image message: an answer whose attachments are image files (never uploads). */
export const isImageMessage = (m: AppMessage): boolean =>
  m.role === 'assistant' && m.attachments.length > 0 && m.attachments.every((a) => a.type.startsWith('image/'));

const fileUrl = (id: string) => `/api/app/images/${encodeURIComponent(id)}/file`;

interface Props {
  message: AppMessage;
  siblingIndex: number;
  siblingCount: number;
}

export const ImageMessage = memo(function ImageMessage({ message, siblingIndex, siblingCount }: Props) {
  const t = useTranslations('images');
  const locale = useLocale();
  const qc = useQueryClient();
  const live = useLiveAnswer(message.id);
  const actions = useChatActions();
  const status = live?.status ?? message.status;
  const making = status === 'streaming';
  const list = useChatImages(message.conversationId, making);
  const models = useImageModels().data?.models;
  const upscaler = models?.find((m) => m.kind === 'upscale' && m.isDefault);
  const remover = models?.find((m) => m.kind === 'background-remove' && m.isDefault);

  // Once made, read the list again: the last images arrived with the message, not with a poll.
  useEffect(() => {
    if (!making) void qc.invalidateQueries({ queryKey: imageKeys.chat(message.conversationId) });
  }, [making, qc, message.conversationId]);

  const shown = useMemo(() => {
    const byId = new Map<string, AppImage>();
    for (const i of list.data?.images ?? []) if (i.messageId === message.id) byId.set(i.id, i);
    const ids = message.attachments.map((a) => a.id);
    for (const id of byId.keys()) if (!ids.includes(id)) ids.push(id);
    return ids.map((id) => ({ id, image: byId.get(id) }));
  }, [list.data, message.attachments, message.id]);
  const expected = Math.max(shown.length, ...shown.map((s) => s.image?.variants ?? 1));
  const waiting = making ? Math.max(1, expected - shown.length) : 0;
  const first = shown.find((s) => s.image)?.image;
  // What was charged, in the unit it was charged in (the daily DIEM first, then USD), as chat answers show it.
  const cost = message.usage ? formatCharge(message.usage.costUsd, message.usage.costDiem, locale) : null;

  return (
    <article data-testid="image-message" data-role="assistant" data-status={status} aria-label={t('images')} className="min-w-0">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2" aria-live="polite" aria-busy={making}>
        {shown.map(({ id, image }) => (
          <ImageCard
            key={id}
            id={id}
            url={image?.url ?? fileUrl(id)}
            downloadUrl={image?.downloadUrl ?? `${fileUrl(id)}?download=1`}
            image={image}
            alt={image?.prompt || first?.prompt || t('generated')}
            upscaler={upscaler}
            remover={remover}
          />
        ))}
        {Array.from({ length: waiting }, (_, i) => (
          <div
            key={`waiting-${i}`}
            data-testid="image-pending"
            className="flex aspect-square items-center justify-center rounded-xl border border-dashed border-border text-muted-foreground"
          >
            <Spinner label={t('making')} className="size-6" />
          </div>
        ))}
      </div>
      {message.content && <p className="mt-2 text-sm text-muted-foreground">{message.content}</p>}
      {status === 'stopped' && <p className="mt-1 text-xs text-muted-foreground italic">{t('stopped')}</p>}
      {status === 'error' && message.error && (
        <p data-testid="image-error" role="alert" className="mt-1 text-sm text-error">
          {message.error.message}
        </p>
      )}
      {!making && (
        <div className="mt-1 flex min-h-8 flex-wrap items-center gap-x-1 text-xs text-muted-foreground">
          <BranchNav index={siblingIndex} count={siblingCount} onStep={(s) => actions.switchSibling(message.id, s)} />
          {first && <span className="truncate">{first.modelName}</span>}
          {cost !== null && (
            <>
              <span aria-hidden="true">·</span>
              <span data-testid="image-cost" className="tabular-nums">
                {cost}
              </span>
            </>
          )}
        </div>
      )}
    </article>
  );
});

// One row of the transcript, by kind. Memoised: a row re-renders only when its own message object changes
// (or the busy flag flips), never because another row streamed a token.
import { useTranslations } from 'use-intl';
import { memo } from 'react';
import { AssistantMessage } from './assistant-message.tsx';
import { AttachmentChip } from './attachment-chip.tsx';
import { ErrorBanner } from './error-banner.tsx';
import { ImageMessage, isImageMessage } from '@/components/images/image-message.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import type { TranscriptRow as Row } from './transcript-rows.ts';
import { UserMessage } from './user-message.tsx';

interface Props {
  row: Row;
  busy: boolean;
}

/** Rows are rebuilt whenever the branch is; what matters is whether this row's content changed. */
function sameRow(a: Props, b: Props): boolean {
  if (a.busy !== b.busy) return false;
  if (a.row === b.row) return true;
  if (a.row.kind !== 'message' || b.row.kind !== 'message') return false;
  return a.row.message === b.row.message && a.row.siblingIndex === b.row.siblingIndex && a.row.siblingCount === b.row.siblingCount;
}

export const TranscriptRow = memo(function TranscriptRow({ row, busy }: Props) {
  const t = useTranslations('chat.message');
  if (row.kind === 'failure') return <ErrorBanner error={row.error} since={row.since} onRetry={row.retry} />;
  if (row.kind === 'pending') {
    return (
      <article data-testid="message" data-role="user" data-status={row.failed ? 'failed' : 'sending'} aria-label={t('you')} className="flex flex-col items-end">
        {row.attachments.length > 0 && (
          <ul aria-label={t('attachments')} className="mb-1.5 flex max-w-[85%] flex-wrap justify-end gap-1.5">
            {row.attachments.map((a) => (
              <AttachmentChip key={a.id} name={a.name} size={a.size} kind={a.kind} previewUrl={a.previewUrl} />
            ))}
          </ul>
        )}
        <div className="max-w-[85%] rounded-2xl bg-muted px-4 py-2.5 text-[15px] leading-7 break-words whitespace-pre-wrap text-foreground">{row.content}</div>
        {!row.failed && (
          <p className="mt-1 flex items-center gap-1.5 text-xs text-muted-foreground">
            <Spinner className="size-3.5" /> {t('sending')}
          </p>
        )}
      </article>
    );
  }
  const { message, siblingIndex, siblingCount } = row;
  if (isImageMessage(message)) return <ImageMessage message={message} siblingIndex={siblingIndex} siblingCount={siblingCount} />;
  return message.role === 'assistant' ? (
    <AssistantMessage message={message} siblingIndex={siblingIndex} siblingCount={siblingCount} busy={busy} />
  ) : (
    <UserMessage message={message} siblingIndex={siblingIndex} siblingCount={siblingCount} busy={busy} />
  );
}, sameRow);

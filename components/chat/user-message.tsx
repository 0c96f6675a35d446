// One user turn: the text exactly as typed (whitespace kept, plain text), its attachments as chips, and a footer
// with edit, copy and ‹ n/m › versions. Editing swaps the bubble for the inline editor.
import { useTranslations } from 'use-intl';
import { memo, useMemo, useState } from 'react';
import type { AppMessage } from '@/lib/wire.ts';
import { AttachmentChip } from './attachment-chip.tsx';
import { AttachmentEdit } from '@/components/images/attachment-edit.tsx';
import { BranchNav } from './branch-nav.tsx';
import { useChatActions } from './chat-context.ts';
import { CopyButton } from './copy-button.tsx';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { EditIcon } from './icons.tsx';
import { MessageEditor } from './message-editor.tsx';
import { MemorySuggestion } from '@/components/memory/memory-suggestion.tsx';
import { RememberButton } from '@/components/memory/remember-button.tsx';
import { memorySuggestion } from '@/components/memory/suggest.ts';

interface Props {
  message: AppMessage;
  siblingIndex: number;
  siblingCount: number;
  busy: boolean;
}

export const UserMessage = memo(function UserMessage({ message, siblingIndex, siblingCount, busy }: Props) {
  const t = useTranslations('chat.message');
  const actions = useChatActions();
  const [editing, setEditing] = useState(false);
  // "Remember that …" offers to save the fact (never saved unless accepted).
  const fact = useMemo(() => memorySuggestion(message.content), [message.content]);
  return (
    <article data-testid="message" data-role="user" data-status={message.status} aria-label={t('you')} className="group flex flex-col items-end">
      {message.attachments.length > 0 && (
        <ul aria-label={t('attachments')} className="mb-1.5 flex max-w-[85%] flex-wrap justify-end gap-1.5">
          {message.attachments.map((a) => (
            <AttachmentChip
              key={a.id}
              name={a.name}
              size={a.size}
              kind={a.kind}
              previewUrl={a.previewUrl}
              extra={a.kind === 'image' && a.previewUrl?.startsWith('data:image/') ? <AttachmentEdit dataUrl={a.previewUrl} name={a.name} /> : undefined}
            />
          ))}
        </ul>
      )}
      {editing ? (
        <MessageEditor
          initial={message.content}
          keptAttachments={message.attachments.length}
          onCancel={() => setEditing(false)}
          onSave={async (text) => {
            const ok = await actions.edit(message, text);
            if (ok) setEditing(false);
            return ok;
          }}
        />
      ) : (
        <div className="max-w-[85%] rounded-2xl bg-muted px-4 py-2.5 text-[15px] leading-7 break-words whitespace-pre-wrap text-foreground">
          {message.content}
        </div>
      )}
      {!editing && (
        <div className="mt-1 flex items-center gap-1 text-muted-foreground">
          <BranchNav index={siblingIndex} count={siblingCount} onStep={(s) => actions.switchSibling(message.id, s)} />
          <CopyButton text={message.content} />
          {message.content.trim() && <RememberButton messageId={message.id} text={message.content} />}
          <IconButton size="sm" label={t('edit')} data-testid="edit-button" disabled={busy} onClick={() => setEditing(true)}>
            <EditIcon />
          </IconButton>
        </div>
      )}
      {!editing && fact && <MemorySuggestion messageId={message.id} fact={fact} />}
    </article>
  );
});

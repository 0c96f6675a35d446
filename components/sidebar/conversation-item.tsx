'use client';
// One chat in the sidebar: a link (aria-current when open), its options menu, inline rename, delete confirmation, and
// dragging it onto a folder (the menu's "Move to folder…" does the same from the keyboard).
import { useTranslations } from 'use-intl';
import Link from 'next/link';
import { useState } from 'react';
import { cn } from '@/components/ui/cn.ts';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import type { AppConversation } from '@/lib/wire.ts';
import { ConversationMenu } from '@/components/sidebar/conversation-menu.tsx';
import { MoveDialog } from '@/components/sidebar/move-dialog.tsx';
import { PinIcon } from '@/components/sidebar/organise-icons.tsx';
import { CHAT_DRAG_TYPE, useOrganise } from '@/components/sidebar/use-organise.ts';
import { RenameInput } from '@/components/sidebar/rename-input.tsx';
import { useDeleteConversation, useRenameConversation } from '@/components/sidebar/use-conversation-actions.ts';

export function ConversationItem({ conversation, active }: { conversation: AppConversation; active: boolean }) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [moving, setMoving] = useState(false);
  const t = useTranslations('sidebar');
  const organise = useOrganise();
  const rename = useRenameConversation();
  const remove = useDeleteConversation();
  const { id, title } = conversation;

  return (
    <li
      className="group relative"
      data-testid="conversation-item"
      data-id={id}
      data-pinned={conversation.pinned}
      data-archived={conversation.archived}
      draggable={!editing}
      onDragStart={(e) => {
        e.dataTransfer.setData(CHAT_DRAG_TYPE, id);
        e.dataTransfer.effectAllowed = 'move';
      }}
    >
      {editing ? (
        <RenameInput
          initial={title}
          onCancel={() => setEditing(false)}
          onSave={(next) => {
            setEditing(false);
            rename.mutate({ id, title: next, previous: title });
          }}
        />
      ) : (
        <Link
          href={`/c/${encodeURIComponent(id)}`}
          aria-current={active ? 'page' : undefined}
          className={cn('flex h-9 items-center rounded-lg pl-3 pr-9 text-sm text-foreground hover:bg-accent', active && 'bg-accent font-medium')}
        >
          {conversation.pinned && (
            <>
              <PinIcon className="mr-1.5 size-3.5 shrink-0 text-muted-foreground" />
              <span className="sr-only">{t('pinnedPrefix')}</span>
            </>
          )}
          <span className="truncate">{title}</span>
        </Link>
      )}
      {!editing && (
        <div
          className={cn(
            'absolute inset-y-0 right-1 flex items-center',
            // Always visible on touch screens; on desktop it appears on hover, focus, or for the open chat.
            !active && 'md:opacity-0 md:group-focus-within:opacity-100 md:group-hover:opacity-100 md:has-[[aria-expanded=true]]:opacity-100',
          )}
        >
          <ConversationMenu
            conversation={conversation}
            onRename={() => setEditing(true)}
            onDelete={() => setConfirming(true)}
            onMove={() => setMoving(true)}
            onOrganise={(change) => organise.mutate({ id, change })}
          />
        </div>
      )}
      {moving && <MoveDialog conversation={conversation} onClose={() => setMoving(false)} />}
      {/* Mounted only while asked, so the page holds one confirmation dialog, not one per chat. */}
      {confirming && (
        <ConfirmDialog
          open
          title={t('deleteChat')}
          message={
            <>
              <span className="font-medium text-foreground">{title}</span>
              {t('deleteChatBody')}
            </>
          }
          confirmLabel={t('delete')}
          pending={remove.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() => remove.mutate({ id, isOpen: active }, { onSettled: () => setConfirming(false) })}
        />
      )}
    </li>
  );
}

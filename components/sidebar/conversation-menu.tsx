'use client';
// The per-chat options: rename, pin, move to a folder, archive (or restore), export (the version on screen as
// Markdown or JSON, or every version as JSON, downloaded straight from the server), delete.
import { useTranslations } from 'use-intl';
import { APP_API } from '@/components/api/client.ts';
import { rememberedLeaf } from '@/components/chat/branch-memory.ts';
import { ArchiveIcon, FolderIcon, PinIcon } from '@/components/sidebar/organise-icons.tsx';
import { DotsIcon, DownloadIcon, PencilIcon, TrashIcon } from '@/components/ui/icons.tsx';
import { Menu, MenuItem, MenuLink, MenuSeparator } from '@/components/ui/menu.tsx';
import type { AppConversation } from '@/lib/wire.ts';

export function ConversationMenu({
  conversation,
  onRename,
  onDelete,
  onMove,
  onOrganise,
}: {
  conversation: AppConversation;
  onRename: () => void;
  onDelete: () => void;
  onMove: () => void;
  onOrganise: (change: { pinned: boolean } | { archived: boolean }) => void;
}) {
  const t = useTranslations('sidebar');
  return (
    <Menu
      label={t('options', { title: conversation.title })}
      testId="conversation-menu"
      trigger={<DotsIcon className="size-4" />}
      triggerClassName="inline-flex size-7 items-center justify-center rounded-md text-muted-foreground hover:bg-background hover:text-foreground aria-expanded:bg-background"
    >
      <MenuItem onSelect={onRename} testId="rename-conversation">
        <PencilIcon className="size-4" /> {t('rename')}
      </MenuItem>
      {!conversation.archived && (
        <MenuItem onSelect={() => onOrganise({ pinned: !conversation.pinned })} testId="pin-conversation">
          <PinIcon className="size-4" /> {conversation.pinned ? t('unpin') : t('pin')}
        </MenuItem>
      )}
      <MenuItem onSelect={onMove} testId="move-conversation">
        <FolderIcon className="size-4" /> {t('moveToFolder')}
      </MenuItem>
      <MenuItem
        onSelect={() => onOrganise({ archived: !conversation.archived })}
        testId={conversation.archived ? 'restore-conversation' : 'archive-conversation'}
      >
        <ArchiveIcon className="size-4" /> {conversation.archived ? t('unarchive') : t('archive')}
      </MenuItem>
      <ExportLinks id={conversation.id} />
      <MenuSeparator />
      <MenuItem onSelect={onDelete} danger testId="delete-conversation">
        <TrashIcon className="size-4" /> {t('delete')}
      </MenuItem>
    </Menu>
  );
}

/** Mounted when the menu opens, so the links carry the branch picked in the chat at that moment. */
function ExportLinks({ id }: { id: string }) {
  const t = useTranslations('sidebar');
  const leaf = rememberedLeaf(id);
  const href = (query: string) => `${APP_API}/conversations/${encodeURIComponent(id)}/export?${query}${leaf ? `&leaf=${encodeURIComponent(leaf)}` : ''}`;
  return (
    <>
      <MenuLink href={href('format=md')} download testId="export-md">
        <DownloadIcon className="size-4" /> {t('exportMd')}
      </MenuLink>
      <MenuLink href={href('format=json')} download testId="export-json">
        <DownloadIcon className="size-4" /> {t('exportJson')}
      </MenuLink>
      <MenuLink href={`${APP_API}/conversations/${encodeURIComponent(id)}/export?format=json&branches=all`} download testId="export-json-all">
        <DownloadIcon className="size-4" /> {t('exportJsonAll')}
      </MenuLink>
    </>
  );
}

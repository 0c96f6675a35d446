'use client';
// The per-chat options: rename, pin, move to a folder, archive (or restore), export (Markdown or JSON, downloaded
// straight from the server), delete.
import { APP_API } from '@/components/api/client.ts';
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
  const exportHref = (format: 'md' | 'json') => `${APP_API}/conversations/${encodeURIComponent(conversation.id)}/export?format=${format}`;
  return (
    <Menu
      label={`Options for ${conversation.title}`}
      testId="conversation-menu"
      trigger={<DotsIcon className="size-4" />}
      triggerClassName="inline-flex size-7 items-center justify-center rounded-md text-muted-foreground hover:bg-background hover:text-foreground aria-expanded:bg-background"
    >
      <MenuItem onSelect={onRename} testId="rename-conversation">
        <PencilIcon className="size-4" /> Rename
      </MenuItem>
      {!conversation.archived && (
        <MenuItem onSelect={() => onOrganise({ pinned: !conversation.pinned })} testId="pin-conversation">
          <PinIcon className="size-4" /> {conversation.pinned ? 'Unpin' : 'Pin'}
        </MenuItem>
      )}
      <MenuItem onSelect={onMove} testId="move-conversation">
        <FolderIcon className="size-4" /> Move to folder…
      </MenuItem>
      <MenuItem
        onSelect={() => onOrganise({ archived: !conversation.archived })}
        testId={conversation.archived ? 'restore-conversation' : 'archive-conversation'}
      >
        <ArchiveIcon className="size-4" /> {conversation.archived ? 'Restore from archive' : 'Archive'}
      </MenuItem>
      <MenuLink href={exportHref('md')} download testId="export-md">
        <DownloadIcon className="size-4" /> Export Markdown
      </MenuLink>
      <MenuLink href={exportHref('json')} download testId="export-json">
        <DownloadIcon className="size-4" /> Export JSON
      </MenuLink>
      <MenuSeparator />
      <MenuItem onSelect={onDelete} danger testId="delete-conversation">
        <TrashIcon className="size-4" /> Delete
      </MenuItem>
    </Menu>
  );
}

'use client';
// The per-chat options: rename, export (Markdown or JSON, downloaded straight from the server), delete.
import { APP_API } from '@/components/api/client.ts';
import { DotsIcon, DownloadIcon, PencilIcon, TrashIcon } from '@/components/ui/icons.tsx';
import { Menu, MenuItem, MenuLink, MenuSeparator } from '@/components/ui/menu.tsx';
import type { AppConversation } from '@/lib/wire.ts';

export function ConversationMenu({ conversation, onRename, onDelete }: { conversation: AppConversation; onRename: () => void; onDelete: () => void }) {
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

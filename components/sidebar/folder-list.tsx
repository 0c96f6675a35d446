'use client';
// The user's folders in the sidebar: make one, rename or delete it (its chats move out, kept), open it to see its
// chats, and drop a dragged chat on it to file the chat there.
// data-testid: folders, new-folder, folder-name-input, folder (data-id, data-drop), folder-toggle, folder-menu,
// rename-folder, delete-folder, folder-chats.
import { useTranslations } from 'use-intl';
import { type DragEvent, useState } from 'react';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { DotsIcon, PencilIcon, PlusIcon, TrashIcon } from '@/components/ui/icons.tsx';
import { Menu, MenuItem, MenuSeparator } from '@/components/ui/menu.tsx';
import { cn } from '@/components/ui/cn.ts';
import type { AppFolder } from '@/lib/wire.ts';
import { ChatListSection } from '@/components/sidebar/chat-list-section.tsx';
import { FolderIcon } from '@/components/sidebar/organise-icons.tsx';
import { RenameInput } from '@/components/sidebar/rename-input.tsx';
import { CHAT_DRAG_TYPE, useCreateFolder, useDeleteFolder, useFolders, useOrganise, useRenameFolder } from '@/components/sidebar/use-organise.ts';

export function ChevronIcon({ open }: { open: boolean }) {
  return (
    <svg
      viewBox="0 0 24 24"
      aria-hidden="true"
      className={cn('size-3.5 shrink-0 transition-transform', open && 'rotate-90')}
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
    >
      <path d="m9 6 6 6-6 6" />
    </svg>
  );
}

/** Drop handlers for a target that files dropped chats with `onChat` (only chats: other drags are ignored). */
export function useChatDrop(onChat: (id: string) => void) {
  const [over, setOver] = useState(false);
  const accepts = (e: DragEvent) => e.dataTransfer.types.includes(CHAT_DRAG_TYPE);
  return {
    over,
    handlers: {
      onDragOver: (e: DragEvent) => {
        if (!accepts(e)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'move';
        setOver(true);
      },
      onDragLeave: () => setOver(false),
      onDrop: (e: DragEvent) => {
        setOver(false);
        if (!accepts(e)) return;
        e.preventDefault();
        const id = e.dataTransfer.getData(CHAT_DRAG_TYPE);
        if (id) onChat(id);
      },
    },
  };
}

function FolderRow({ folder, activeId }: { folder: AppFolder; activeId: string | null }) {
  const [open, setOpen] = useState(false);
  const t = useTranslations('sidebar');
  const [renaming, setRenaming] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const organise = useOrganise();
  const rename = useRenameFolder();
  const remove = useDeleteFolder();
  const drop = useChatDrop((id) => {
    organise.mutate({ id, change: { folderId: folder.id } });
    setOpen(true);
  });
  return (
    <li data-testid="folder" data-id={folder.id} data-drop={drop.over} className="flex flex-col gap-0.5">
      <div {...drop.handlers} className={cn('group relative rounded-lg', drop.over && 'bg-accent outline-2 outline-ring')}>
        {renaming ? (
          <RenameInput
            initial={folder.name}
            label={t('folderName')}
            testId="folder-name-input"
            onCancel={() => setRenaming(false)}
            onSave={(name) => {
              setRenaming(false);
              rename.mutate({ id: folder.id, name });
            }}
          />
        ) : (
          <button
            type="button"
            aria-expanded={open}
            data-testid="folder-toggle"
            onClick={() => setOpen(!open)}
            className="flex h-9 w-full items-center gap-1.5 rounded-lg pl-2 pr-9 text-left text-sm hover:bg-accent"
          >
            <ChevronIcon open={open} />
            <FolderIcon className="size-4 shrink-0 text-muted-foreground" />
            <span className="truncate">{folder.name}</span>
          </button>
        )}
        {!renaming && (
          <div className="absolute inset-y-0 right-1 flex items-center md:opacity-0 md:group-focus-within:opacity-100 md:group-hover:opacity-100 md:has-[[aria-expanded=true]]:opacity-100">
            <Menu
              label={t('folderOptions', { name: folder.name })}
              testId="folder-menu"
              trigger={<DotsIcon className="size-4" />}
              triggerClassName="inline-flex size-7 items-center justify-center rounded-md text-muted-foreground hover:bg-background hover:text-foreground aria-expanded:bg-background"
            >
              <MenuItem onSelect={() => setRenaming(true)} testId="rename-folder">
                <PencilIcon className="size-4" /> {t('rename')}
              </MenuItem>
              <MenuSeparator />
              <MenuItem onSelect={() => setConfirming(true)} danger testId="delete-folder">
                <TrashIcon className="size-4" /> {t('deleteFolder')}
              </MenuItem>
            </Menu>
          </div>
        )}
      </div>
      {open && (
        <div className="pl-4">
          <ChatListSection filter={{ folder: folder.id }} activeId={activeId} empty={t('folderEmpty')} testId="folder-chats" />
        </div>
      )}
      {confirming && (
        <ConfirmDialog
          open
          title={t('deleteFolderTitle')}
          message={
            <>
              <span className="font-medium text-foreground">{folder.name}</span>
              {t('deleteFolderBody')}
            </>
          }
          confirmLabel={t('deleteFolder')}
          pending={remove.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() => remove.mutate(folder.id, { onSettled: () => setConfirming(false) })}
        />
      )}
    </li>
  );
}

export function FolderList({ activeId }: { activeId: string | null }) {
  const t = useTranslations('sidebar');
  const q = useFolders();
  const create = useCreateFolder();
  const [naming, setNaming] = useState(false);
  const folders = q.data?.items ?? [];
  const full = q.data ? folders.length >= q.data.max : false;
  return (
    <section aria-label={t('folders')} data-testid="folders">
      <div className="flex items-center justify-between pr-1">
        <h2 className="px-3 text-xs font-medium text-muted-foreground">{t('folders')}</h2>
        <IconButton size="sm" label={t('newFolder')} data-testid="new-folder" disabled={full} onClick={() => setNaming(true)}>
          <PlusIcon className="size-4" />
        </IconButton>
      </div>
      <ul className="flex flex-col gap-0.5">
        {folders.map((f) => (
          <FolderRow key={f.id} folder={f} activeId={activeId} />
        ))}
        {naming && (
          <li>
            <RenameInput
              initial={t('newFolder')}
              label={t('folderName')}
              testId="folder-name-input"
              saveUnchanged
              onCancel={() => setNaming(false)}
              onSave={(name) => {
                setNaming(false);
                create.mutate(name);
              }}
            />
          </li>
        )}
      </ul>
    </section>
  );
}

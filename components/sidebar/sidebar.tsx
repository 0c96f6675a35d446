'use client';
// The sidebar: brand, New chat, Characters, history search, the chat history (pinned, folders, the list by date,
// archived) and the user menu.
// data-testid: sidebar, new-chat, sidebar-search, search-results, search-hit, conversation-list, conversation-item
// (data-id), conversation-menu, rename-conversation, pin-conversation, move-conversation, archive-conversation,
// restore-conversation (and folder-list.tsx's, archived-section.tsx's, move-dialog.tsx's), rename-input, export-md, export-json, delete-conversation,
// confirm-dialog, confirm-button, characters-link, knowledge-link, private-link, memory-link, prompts-link, video-link, images-link, usage-link, user-menu, theme-light/-dark/-system, account-link, sign-out.
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { type ComponentType, useState } from 'react';
import { useTranslations } from 'use-intl';
import { BrandMark } from '@/components/shell/brand.tsx';
import { buttonClasses } from '@/components/ui/button.tsx';
import { cn } from '@/components/ui/cn.ts';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { BookIcon, LockIcon, PanelLeftIcon, PlusIcon, UsersIcon, XIcon } from '@/components/ui/icons.tsx';
import { useDebouncedValue } from '@/components/ui/use-debounced-value.ts';
import { ArchivedSection } from '@/components/sidebar/archived-section.tsx';
import { PinnedSection } from '@/components/sidebar/chat-list-section.tsx';
import { ConversationList } from '@/components/sidebar/conversation-list.tsx';
import { FolderList } from '@/components/sidebar/folder-list.tsx';
import { SearchResults } from '@/components/sidebar/search-results.tsx';
import { SidebarSearch } from '@/components/sidebar/sidebar-search.tsx';
import { UserMenu } from '@/components/sidebar/user-menu.tsx';
import { AccountSwitcher } from '@/components/teams/account-switcher.tsx';
import { VideoIcon } from '@/components/video/video-icon.tsx';
import { ImageIcon } from '@/components/images/image-icon.tsx';
import { MemoryIcon } from '@/components/memory/icons.tsx';
import { PromptIcon } from '@/components/prompts/icons.tsx';

export interface SidebarProps {
  /** Closes the drawer (small screens). */
  onClose: () => void;
  /** Hides the sidebar (large screens). */
  onCollapse: () => void;
}

/** The app's places above the history, in order (the Account area is in the user menu). */
const PLACES: Array<{
  href: string;
  key: 'characters' | 'knowledge' | 'private' | 'memory' | 'prompts' | 'video' | 'images';
  Icon: ComponentType<{ className?: string }>;
  testId: string;
}> = [
  { href: '/characters', key: 'characters', Icon: UsersIcon, testId: 'characters-link' },
  { href: '/knowledge', key: 'knowledge', Icon: BookIcon, testId: 'knowledge-link' },
  { href: '/private', key: 'private', Icon: LockIcon, testId: 'private-link' },
  { href: '/memory', key: 'memory', Icon: MemoryIcon, testId: 'memory-link' },
  { href: '/prompts', key: 'prompts', Icon: PromptIcon, testId: 'prompts-link' },
  { href: '/video', key: 'video', Icon: VideoIcon, testId: 'video-link' },
  { href: '/images', key: 'images', Icon: ImageIcon, testId: 'images-link' },
];

export function Sidebar({ onClose, onCollapse }: SidebarProps) {
  const t = useTranslations('nav');
  const pathname = usePathname();
  const [search, setSearch] = useState('');
  const debounced = useDebouncedValue(search.trim(), 250);
  // Clearing the box shows the list at once; typing waits for a pause.
  const query = search.trim() ? debounced : '';
  const activeId = pathname.startsWith('/c/') ? decodeURIComponent(pathname.slice(3).split('/')[0]) : null;

  return (
    // Following any page link closes the drawer, even to the page already open (no route change to notice).
    <div
      className="flex h-full flex-col gap-3 bg-sidebar p-2"
      data-testid="sidebar"
      onClick={(e) => {
        if ((e.target as HTMLElement).closest('a[href]:not([download])')) onClose();
      }}
    >
      <div className="flex items-center justify-between gap-2 pl-1.5">
        <Link href="/" className="inline-flex items-center gap-2 rounded-lg py-1 pr-2 text-base font-semibold tracking-tight">
          <BrandMark className="size-6" />
          Lagoon
        </Link>
        <IconButton label={t('closeSidebar')} className="md:hidden" onClick={onClose}>
          <XIcon />
        </IconButton>
        <IconButton label={t('collapseSidebar')} className="max-md:hidden" data-testid="collapse-sidebar" onClick={onCollapse}>
          <PanelLeftIcon />
        </IconButton>
      </div>
      <div className="flex flex-col gap-1">
        <Link href="/" className={buttonClasses('secondary', 'md', 'justify-start')} data-testid="new-chat">
          <PlusIcon className="size-4" /> {t('newChat')}
        </Link>
        {/* Two to a row: the places of the app take three rows, and the history keeps the height (issue 32). */}
        <div className="grid grid-cols-2 gap-1">
          {PLACES.map(({ href, key, Icon, testId }) => (
            <Link
              key={href}
              href={href}
              aria-current={pathname === href ? 'page' : undefined}
              className={cn(buttonClasses('ghost', 'sm', 'justify-start font-normal'), pathname === href && 'bg-accent font-medium')}
              data-testid={testId}
            >
              <Icon className="size-4" /> {t(key)}
            </Link>
          ))}
        </div>
      </div>
      <SidebarSearch value={search} onChange={setSearch} />
      <nav aria-label={t('chatHistory')} className="-mx-2 min-h-0 flex-1 overflow-y-auto overscroll-contain px-2">
        {query ? (
          <SearchResults query={query} activeId={activeId} />
        ) : (
          <div className="flex flex-col gap-4">
            <PinnedSection activeId={activeId} />
            <FolderList activeId={activeId} />
            <ConversationList activeId={activeId} />
            <ArchivedSection activeId={activeId} />
          </div>
        )}
      </nav>
      <div className="border-t border-border pt-2">
        <AccountSwitcher />
        <UserMenu />
      </div>
    </div>
  );
}

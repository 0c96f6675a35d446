'use client';
// Archived chats, at the end of the history: folded away until asked for; each one restores from its menu.
// data-testid: archived-toggle, archived-list.
import { useTranslations } from 'use-intl';
import { useState } from 'react';
import { ChevronIcon } from '@/components/sidebar/folder-list.tsx';
import { ArchiveIcon } from '@/components/sidebar/organise-icons.tsx';
import { ChatListSection } from '@/components/sidebar/chat-list-section.tsx';

export function ArchivedSection({ activeId }: { activeId: string | null }) {
  const t = useTranslations('sidebar');
  const [open, setOpen] = useState(false);
  return (
    <section aria-label={t('archived')} className="pb-2">
      <button
        type="button"
        aria-expanded={open}
        data-testid="archived-toggle"
        onClick={() => setOpen(!open)}
        className="flex h-8 w-full items-center gap-1.5 rounded-lg px-3 text-xs font-medium text-muted-foreground hover:bg-accent"
      >
        <ChevronIcon open={open} />
        <ArchiveIcon className="size-3.5" /> {t('archived')}
      </button>
      {open && <ChatListSection filter={{ archived: true }} activeId={activeId} empty={t('noArchived')} testId="archived-list" />}
    </section>
  );
}

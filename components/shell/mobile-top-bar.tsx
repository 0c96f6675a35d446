'use client';
// The bar above the page on small screens: the menu button that opens the sidebar drawer, and New chat.
import Link from 'next/link';
import type { Ref } from 'react';
import { useTranslations } from 'use-intl';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { MenuIcon, PlusIcon } from '@/components/ui/icons.tsx';

export function MobileTopBar({ drawerOpen, onOpen, menuButtonRef }: { drawerOpen: boolean; onOpen: () => void; menuButtonRef: Ref<HTMLButtonElement> }) {
  const t = useTranslations('nav');
  return (
    <header className="flex h-12 shrink-0 items-center gap-1 border-b border-border px-1.5 md:hidden">
      <IconButton ref={menuButtonRef} label={t('openSidebar')} aria-controls="sidebar" aria-expanded={drawerOpen} data-testid="open-sidebar" onClick={onOpen}>
        <MenuIcon />
      </IconButton>
      <span className="flex-1 text-center text-base font-semibold">Lagoon</span>
      <Link
        href="/"
        aria-label={t('newChat')}
        title={t('newChat')}
        className="inline-flex size-10 items-center justify-center rounded-lg text-muted-foreground hover:bg-accent hover:text-foreground"
      >
        <PlusIcon />
      </Link>
    </header>
  );
}

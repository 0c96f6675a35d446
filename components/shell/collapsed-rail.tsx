'use client';
// The collapsed sidebar on large screens: a narrow rail with the actions still one click away.
import Link from 'next/link';
import type { ComponentType } from 'react';
import { useTranslations } from 'use-intl';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { BookIcon, LockIcon, PanelLeftIcon, PlusIcon, UsersIcon } from '@/components/ui/icons.tsx';
import { VideoIcon } from '@/components/video/video-icon.tsx';
import { ImageIcon } from '@/components/images/image-icon.tsx';
import { MemoryIcon } from '@/components/memory/icons.tsx';
import { AccountRailLinks } from '@/components/billing/nav-links.tsx';

const RAIL_LINK = 'inline-flex size-10 items-center justify-center rounded-lg text-muted-foreground hover:bg-accent hover:text-foreground';

const RAIL: Array<{ href: string; key: 'newChat' | 'characters' | 'knowledge' | 'private' | 'memory' | 'video' | 'images'; Icon: ComponentType }> = [
  { href: '/', key: 'newChat', Icon: PlusIcon },
  { href: '/characters', key: 'characters', Icon: UsersIcon },
  { href: '/knowledge', key: 'knowledge', Icon: BookIcon },
  { href: '/private', key: 'private', Icon: LockIcon },
  { href: '/memory', key: 'memory', Icon: MemoryIcon },
  { href: '/video', key: 'video', Icon: VideoIcon },
  { href: '/images', key: 'images', Icon: ImageIcon },
];

export function CollapsedRail({ onExpand }: { onExpand: () => void }) {
  const t = useTranslations('nav');
  return (
    <nav aria-label={t('sidebar')} className="flex w-14 shrink-0 flex-col items-center gap-1 border-r border-border bg-sidebar py-2 max-md:hidden">
      <IconButton label={t('expandSidebar')} aria-controls="sidebar" aria-expanded={false} data-testid="expand-sidebar" onClick={onExpand}>
        <PanelLeftIcon />
      </IconButton>
      {RAIL.map(({ href, key, Icon }) => (
        <Link key={href} href={href} aria-label={t(key)} title={t(key)} className={RAIL_LINK}>
          <Icon />
        </Link>
      ))}
      <AccountRailLinks className={RAIL_LINK} />
    </nav>
  );
}

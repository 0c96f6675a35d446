// The collapsed sidebar on large screens: a narrow rail with the actions still one click away.
import Link from 'next/link';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { BookIcon, PanelLeftIcon, PlusIcon, UsersIcon } from '@/components/ui/icons.tsx';
import { VideoIcon } from '@/components/video/video-icon.tsx';
import { ImageIcon } from '@/components/images/image-icon.tsx';
import { AccountRailLinks } from '@/components/billing/nav-links.tsx';

const RAIL_LINK = 'inline-flex size-10 items-center justify-center rounded-lg text-muted-foreground hover:bg-accent hover:text-foreground';

export function CollapsedRail({ onExpand }: { onExpand: () => void }) {
  return (
    <nav aria-label="Sidebar" className="flex w-14 shrink-0 flex-col items-center gap-1 border-r border-border bg-sidebar py-2 max-md:hidden">
      <IconButton label="Expand sidebar" aria-controls="sidebar" aria-expanded={false} data-testid="expand-sidebar" onClick={onExpand}>
        <PanelLeftIcon />
      </IconButton>
      <Link href="/" aria-label="New chat" title="New chat" className={RAIL_LINK}>
        <PlusIcon />
      </Link>
      <Link href="/characters" aria-label="Characters" title="Characters" className={RAIL_LINK}>
        <UsersIcon />
      </Link>
      <Link href="/knowledge" aria-label="Knowledge" title="Knowledge" className={RAIL_LINK}>
        <BookIcon />
      </Link>
      <Link href="/video" aria-label="Video" title="Video" className={RAIL_LINK}>
        <VideoIcon />
      </Link>
      <Link href="/images" aria-label="Images" title="Images" className={RAIL_LINK}>
        <ImageIcon />
      </Link>
      <AccountRailLinks className={RAIL_LINK} />
    </nav>
  );
}

'use client';
// A character's photo, or their initials on a colour picked from the slug when there is no photo or it fails to load.
import { useState } from 'react';
import { cn } from '@/components/ui/cn.ts';
import { initials } from '@/components/ui/initials.ts';

// Each pair keeps the initials at ≥ 4.5:1 contrast in both themes.
const PALETTE = [
  'bg-teal-100 text-teal-900 dark:bg-teal-900 dark:text-teal-100',
  'bg-sky-100 text-sky-900 dark:bg-sky-900 dark:text-sky-100',
  'bg-violet-100 text-violet-900 dark:bg-violet-900 dark:text-violet-100',
  'bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100',
  'bg-rose-100 text-rose-900 dark:bg-rose-900 dark:text-rose-100',
  'bg-lime-100 text-lime-900 dark:bg-lime-900 dark:text-lime-100',
];

function paletteFor(slug: string): string {
  let h = 0;
  for (const ch of slug) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length];
}

export function CharacterAvatar({ slug, name, photoUrl, className }: { slug: string; name: string; photoUrl: string | null; className?: string }) {
  const [failed, setFailed] = useState(false);
  if (photoUrl && !failed) {
    return (
      // A plain <img>: photos may live on any host, and next/image would need every host configured.
      <img
        src={photoUrl}
        alt={name}
        loading="lazy"
        decoding="async"
        onError={() => setFailed(true)}
        className={cn('size-16 shrink-0 rounded-xl bg-muted object-cover', className)}
      />
    );
  }
  return (
    <span role="img" aria-label={name} className={cn('grid size-16 shrink-0 place-items-center rounded-xl text-lg font-semibold', paletteFor(slug), className)}>
      <span aria-hidden="true">{initials(name)}</span>
    </span>
  );
}

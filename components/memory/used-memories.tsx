// The marker on an answer that was given the user's memories: how many, and (expanded) which, as they read then.
// data-testid: memories-used (the <details>), memory-used (each one).
import { useTranslations } from 'use-intl';
import Link from 'next/link';
import type { AppUsedMemory } from '@/lib/wire.ts';
import { MemoryIcon } from './icons.tsx';

export function UsedMemories({ memories }: { memories: AppUsedMemory[] }) {
  const t = useTranslations('memoryChat');
  const n = memories.length;
  return (
    <details data-testid="memories-used" className="group mb-2 text-xs text-muted-foreground">
      <summary className="inline-flex cursor-pointer list-none items-center gap-1 rounded-full border border-border px-2 py-0.5 hover:bg-accent [&::-webkit-details-marker]:hidden">
        <MemoryIcon className="size-3.5" />
        {t('used', { count: n })}
      </summary>
      <ul className="mt-1.5 space-y-1 rounded-lg bg-muted px-3 py-2 text-foreground">
        {memories.map((m) => (
          <li key={m.id} data-testid="memory-used" className="break-words">
            {m.content}
          </li>
        ))}
      </ul>
      <Link href="/memory" className="mt-1 inline-block font-medium text-primary underline-offset-4 hover:underline">
        {t('manageAll')}
      </Link>
    </details>
  );
}

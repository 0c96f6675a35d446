'use client';
// The editor's pages: /characters/new, and /characters/[slug]/edit for the owner (anyone else is told it is not theirs).
// data-testid: character-editor-page, not-owner.
import { useTranslations } from 'use-intl';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { buttonClasses } from '@/components/ui/button.tsx';
import { EmptyState, QueryContent } from '@/components/ui/query-state.tsx';
import { CharacterEditor } from '@/components/characters/character-editor.tsx';
import { characterPath, useCharacter } from '@/components/characters/queries.ts';

function Frame({ title, back, children }: { title: string; back: { href: string; label: string }; children: ReactNode }) {
  return (
    <div className="flex-1 overflow-y-auto" data-testid="character-editor-page">
      <div className="mx-auto flex max-w-6xl flex-col gap-6 px-4 py-6 sm:px-6 sm:py-8">
        <Link href={back.href} className="text-sm text-muted-foreground hover:text-foreground hover:underline">
          ← {back.label}
        </Link>
        <h1 className="text-2xl font-semibold tracking-tight break-words">{title}</h1>
        {children}
      </div>
    </div>
  );
}

export function NewCharacterPage() {
  const t = useTranslations('characters');
  return (
    <Frame title={t('new')} back={{ href: '/characters', label: t('allCharacters') }}>
      <CharacterEditor />
    </Frame>
  );
}

export function EditCharacterPage({ slug }: { slug: string }) {
  const t = useTranslations('characters');
  const q = useCharacter(slug);
  return (
    <Frame title={q.data ? t('editTitle', { name: q.data.name }) : t('editCharacter')} back={{ href: characterPath(slug), label: t('backToCharacter') }}>
      <QueryContent query={q} loading={t('loadingOne')} failed={t('failedOne')}>
        {(c) =>
          c.isOwner ? (
            <CharacterEditor existing={c} />
          ) : (
            <div className="flex flex-col items-start gap-3" data-testid="not-owner">
              <EmptyState>{t('notOwner')}</EmptyState>
              <Link href={characterPath(slug)} className={buttonClasses('secondary', 'md')}>
                {t('backToCharacter')}
              </Link>
            </div>
          )
        }
      </QueryContent>
    </Frame>
  );
}

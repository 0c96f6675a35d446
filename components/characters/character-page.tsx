'use client';
// One character (/characters/[slug]): who it is, "Start chat", the owner's and the operator's actions, what it is told
// and how it opens, and its reviews. Every field is rendered as text: nothing from a character is markup.
// data-testid: character-page, character-name, character-owner, character-visibility, character-description,
// character-tag, character-first-message, character-instructions, character-example, character-missing (plus
// start-chat.tsx's, owner-actions.tsx's and reviews.tsx's).
import { useTranslations } from 'use-intl';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { AppApiError } from '@/components/api/client.ts';
import { useMe } from '@/components/session/use-me.ts';
import { buttonClasses } from '@/components/ui/button.tsx';
import { EmptyState, QueryContent } from '@/components/ui/query-state.tsx';
import { CharacterAvatar } from '@/components/characters/character-avatar.tsx';
import { OperatorActions, OwnerActions } from '@/components/characters/owner-actions.tsx';
import { useCharacter } from '@/components/characters/queries.ts';
import { Reviews } from '@/components/characters/reviews.tsx';
import { StartChat } from '@/components/characters/start-chat.tsx';
import type { CharacterDetail } from '@/components/characters/types.ts';
import { useFormat } from '@/components/i18n/format.ts';

function TextBlock({ title, children, testId, open }: { title: string; children: string; testId: string; open?: boolean }) {
  if (!children) return null;
  return (
    <details className="rounded-xl border border-border p-4" open={open}>
      <summary className="cursor-pointer text-sm font-semibold">{title}</summary>
      <p className="mt-2 max-h-96 overflow-y-auto text-sm whitespace-pre-wrap break-words" data-testid={testId}>
        {children}
      </p>
    </details>
  );
}

function Facts({ c }: { c: CharacterDetail }) {
  const t = useTranslations('characters');
  const fmt = useFormat();
  const facts: [string, ReactNode][] = [
    [t('factModel'), c.modelId ?? t('chatDefault')],
    [t('factTemperature'), c.temperature ?? t('modelDefaultLong')],
    [t('factWeb'), c.webEnabled ? t('on') : t('off')],
    [t('factChats'), fmt.count(c.stats.chats)],
  ];
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
      {facts.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="text-muted-foreground">{k}</dt>
          <dd className="break-all">{v}</dd>
        </div>
      ))}
    </dl>
  );
}

function Character({ c, isAdmin }: { c: CharacterDetail; isAdmin: boolean }) {
  const t = useTranslations('characters');
  return (
    <div className="flex flex-col gap-6">
      <header className="flex flex-col gap-4 sm:flex-row sm:items-start">
        <CharacterAvatar slug={c.slug} name={c.name} photoUrl={c.avatarUrl} className="size-28 text-3xl" />
        <div className="flex min-w-0 flex-1 flex-col gap-2">
          <h1 className="text-2xl font-semibold tracking-tight break-words" data-testid="character-name">
            {c.name}
          </h1>
          <p className="text-sm text-muted-foreground">
            <span data-testid="character-owner">{c.isOwner ? t('madeByYou') : c.owner ? t('madeBy', { name: c.owner.name }) : t('builtIn')}</span>
            {' · '}
            <span data-testid="character-visibility">{c.visibility === 'public' ? t('published') : t('privateToYou')}</span>
            {c.adult && t('adult')}
          </p>
          <p className="text-xs text-muted-foreground">
            {t('publicId')} <code className="rounded bg-muted px-1 py-0.5 break-all">{c.slug}</code>
          </p>
          {c.tags.length > 0 && (
            <ul className="flex flex-wrap gap-1" aria-label={t('tags')}>
              {c.tags.map((tag) => (
                <li key={tag}>
                  <Link
                    href={`/characters?tag=${encodeURIComponent(tag)}`}
                    className="rounded-full bg-muted px-2 py-0.5 text-xs text-muted-foreground hover:bg-accent hover:text-foreground"
                    data-testid="character-tag"
                  >
                    {tag}
                  </Link>
                </li>
              ))}
            </ul>
          )}
          {c.description && (
            <p className="text-sm whitespace-pre-wrap break-words" data-testid="character-description">
              {c.description}
            </p>
          )}
        </div>
        <div className="sm:w-56">
          <StartChat slug={c.slug} name={c.name} />
        </div>
      </header>
      {(c.isOwner || isAdmin) && (
        <div className="flex flex-wrap gap-2">
          {c.isOwner && <OwnerActions character={c} />}
          {isAdmin && !c.isOwner && <OperatorActions character={c} />}
        </div>
      )}
      <Facts c={c} />
      <TextBlock title={t('firstMessage')} testId="character-first-message" open>
        {c.firstMessage}
      </TextBlock>
      <TextBlock title={t('instructions')} testId="character-instructions">
        {c.instructions}
      </TextBlock>
      <TextBlock title={t('example')} testId="character-example">
        {c.exampleDialogue}
      </TextBlock>
      <Reviews character={c} isAdmin={isAdmin} />
    </div>
  );
}

export function CharacterPage({ slug }: { slug: string }) {
  const t = useTranslations('characters');
  const q = useCharacter(slug);
  const isAdmin = useMe().data?.user.isAdmin ?? false;
  const missing = q.error instanceof AppApiError && q.error.status === 404;
  return (
    <div className="flex-1 overflow-y-auto" data-testid="character-page">
      <div className="mx-auto flex max-w-4xl flex-col gap-6 px-4 py-6 sm:px-6 sm:py-8">
        <Link href="/characters" className="text-sm text-muted-foreground hover:text-foreground hover:underline">
          {t('backToAll')}
        </Link>
        {missing ? (
          <div data-testid="character-missing" className="flex flex-col items-start gap-3">
            <h1 className="text-2xl font-semibold">{t('notFound')}</h1>
            <EmptyState>{t('notFoundBody')}</EmptyState>
            <Link href="/characters" className={buttonClasses('secondary', 'md')}>
              {t('browse')}
            </Link>
          </div>
        ) : (
          <QueryContent query={q} loading={t('loadingOne')} failed={t('failedOne')}>
            {(c) => <Character c={c} isAdmin={isAdmin} />}
          </QueryContent>
        )}
      </div>
    </div>
  );
}

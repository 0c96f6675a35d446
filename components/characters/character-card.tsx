// One character in the browse grid: avatar, name (a link to its page), who made it, its rating and chats, tags (click
// one to filter by it), the description and a button to start a chat.
import { useTranslations } from 'use-intl';
import Link from 'next/link';
import { CharacterAvatar } from '@/components/characters/character-avatar.tsx';
import { characterPath } from '@/components/characters/queries.ts';
import { StarRow } from '@/components/characters/stars.tsx';
import { StartChat } from '@/components/characters/start-chat.tsx';
import type { CharacterSummary } from '@/components/characters/types.ts';

export function CharacterCard({ character, onTag }: { character: CharacterSummary; onTag: (tag: string) => void }) {
  const { slug, name, description, tags, stats, owner, visibility } = character;
  const t = useTranslations('characters');
  const headingId = `character-${slug}`;
  return (
    <li className="flex" data-testid="character-card" data-slug={slug}>
      <article aria-labelledby={headingId} className="flex w-full flex-col gap-3 rounded-xl border border-border bg-card p-4 text-card-foreground">
        <div className="flex items-start gap-3">
          <CharacterAvatar slug={slug} name={name} photoUrl={character.avatarUrl} />
          <div className="min-w-0 flex-1">
            <h2 id={headingId} className="text-base font-semibold break-words">
              <Link href={characterPath(slug)} className="hover:underline" data-testid="character-link">
                {name}
              </Link>
            </h2>
            <p className="text-xs text-muted-foreground">
              {owner ? t('by', { name: owner.name }) : t('builtIn')}
              {visibility === 'private' && (
                <span className="ml-1.5 rounded bg-muted px-1.5 py-0.5 font-medium text-foreground" data-testid="private-badge">
                  {t('private')}
                </span>
              )}
            </p>
            <p className="mt-1 flex flex-wrap items-center gap-x-2 text-xs text-muted-foreground">
              {stats.ratingCount > 0 && stats.averageRating !== null ? (
                <span className="inline-flex items-center gap-1">
                  <StarRow value={stats.averageRating} className="[&_svg]:size-3.5" /> ({stats.ratingCount})
                </span>
              ) : (
                <span>{t('noReviews')}</span>
              )}
              <span>{t('chats', { count: stats.chats })}</span>
            </p>
          </div>
        </div>
        {tags.length > 0 && (
          <ul className="flex flex-wrap gap-1" aria-label={t('tags')}>
            {tags.map((tag) => (
              <li key={tag}>
                <button
                  type="button"
                  onClick={() => onTag(tag)}
                  title={t('showTagged', { tag })}
                  className="rounded-full bg-muted px-2 py-0.5 text-xs text-muted-foreground hover:bg-accent hover:text-foreground"
                >
                  {tag}
                </button>
              </li>
            ))}
          </ul>
        )}
        {description && <p className="line-clamp-3 text-sm break-words text-muted-foreground">{description}</p>}
        <StartChat slug={slug} name={name} variant="secondary" size="md" className="mt-auto" testId="start-character-chat" />
      </article>
    </li>
  );
}

// One character: photo, name, description, tags (click one to filter by it) and a button to start a chat.
import Link from 'next/link';
import { buttonClasses } from '@/components/ui/button.tsx';
import { ChatIcon } from '@/components/ui/icons.tsx';
import type { AppCharacter } from '@/lib/app/wire.ts';
import { CharacterAvatar } from '@/components/characters/character-avatar.tsx';

export function CharacterCard({ character, onTag }: { character: AppCharacter; onTag: (tag: string) => void }) {
  const { slug, name, description, photoUrl, tags } = character;
  const headingId = `character-${slug}`;
  return (
    <li className="flex" data-testid="character-card" data-slug={slug}>
      <article aria-labelledby={headingId} className="flex w-full flex-col gap-3 rounded-xl border border-border bg-card p-4 text-card-foreground">
        <div className="flex items-start gap-3">
          <CharacterAvatar slug={slug} name={name} photoUrl={photoUrl} />
          <div className="min-w-0 flex-1">
            <h2 id={headingId} className="text-base font-semibold break-words">
              {name}
            </h2>
            {tags.length > 0 && (
              <ul className="mt-1.5 flex flex-wrap gap-1" aria-label="Tags">
                {tags.map((t) => (
                  <li key={t}>
                    <button
                      type="button"
                      onClick={() => onTag(t)}
                      title={`Show characters tagged ${t}`}
                      className="rounded-full bg-muted px-2 py-0.5 text-xs text-muted-foreground hover:bg-accent hover:text-foreground"
                    >
                      {t}
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </div>
        </div>
        {description && <p className="line-clamp-3 text-sm text-muted-foreground">{description}</p>}
        <Link
          href={`/?character=${encodeURIComponent(slug)}`}
          className={buttonClasses('secondary', 'md', 'mt-auto w-full')}
          data-testid="start-character-chat"
        >
          <ChatIcon className="size-4" /> Start chat<span className="sr-only"> with {name}</span>
        </Link>
      </article>
    </li>
  );
}

// What a new chat shows before its first message: a greeting, or the character being talked to.
import type { AppCharacter } from '@/lib/app/wire.ts';
import { CharacterAvatar } from './character-avatar.tsx';

export function EmptyState({ character }: { character: AppCharacter | null }) {
  if (character) {
    return (
      <div className="mx-auto flex h-full max-w-xl flex-col items-center justify-center gap-3 px-6 text-center">
        <CharacterAvatar character={character} className="size-16 text-lg" />
        <h2 className="text-xl font-semibold">{character.name}</h2>
        <p className="text-muted-foreground">{character.description}</p>
        {character.tags.length > 0 && (
          <ul aria-label="Tags" className="flex flex-wrap justify-center gap-1.5">
            {character.tags.map((t) => (
              <li key={t} className="rounded-full bg-muted px-2 py-0.5 text-xs text-muted-foreground">
                {t}
              </li>
            ))}
          </ul>
        )}
        <p className="text-sm text-muted-foreground">Say hello to start the conversation.</p>
      </div>
    );
  }
  return (
    <div className="mx-auto flex h-full max-w-xl flex-col items-center justify-center gap-2 px-6 text-center">
      <h2 className="text-2xl font-semibold">How can I help?</h2>
      <p className="text-muted-foreground">Ask anything, attach a document or an image, or pick another model above.</p>
    </div>
  );
}

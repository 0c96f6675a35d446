// What a new chat shows before its first message: a greeting, or the character being talked to; and, with the demo
// model, that its answers are meaningless and how to connect a real one; and the free daily DIEM left.
import { useTranslations } from 'use-intl';
import { FreeAllowance } from '@/components/account/free-allowance.tsx';
import { useMe } from '@/components/session/use-me.ts';
import type { AppCharacter, AppModel } from '@/lib/wire.ts';
import { CharacterAvatar } from './character-avatar.tsx';
import { DemoNotice } from './demo-notice.tsx';

export function EmptyState({ character, model }: { character: AppCharacter | null; model?: AppModel | null }) {
  const t = useTranslations('chat.empty');
  const isAdmin = !!useMe().data?.user.isAdmin;
  const demo = model?.demo ? <DemoNotice model={model} isAdmin={isAdmin} /> : null;
  if (character) {
    return (
      <div className="mx-auto flex h-full max-w-xl flex-col items-center justify-center gap-3 px-6 text-center">
        <CharacterAvatar character={character} className="size-16 text-lg" />
        <h2 className="text-xl font-semibold">{character.name}</h2>
        <p className="text-muted-foreground">{character.description}</p>
        {character.tags.length > 0 && (
          <ul aria-label={t('tags')} className="flex flex-wrap justify-center gap-1.5">
            {character.tags.map((tag) => (
              <li key={tag} className="rounded-full bg-muted px-2 py-0.5 text-xs text-muted-foreground">
                {tag}
              </li>
            ))}
          </ul>
        )}
        <p className="text-sm text-muted-foreground">{t('sayHello')}</p>
        {demo}
      </div>
    );
  }
  return (
    <div className="mx-auto flex h-full max-w-xl flex-col items-center justify-center gap-2 px-6 text-center">
      <h2 className="text-2xl font-semibold">{t('title')}</h2>
      <p className="text-muted-foreground">{t('body')}</p>
      <FreeAllowance />
      {demo && <div className="mt-2">{demo}</div>}
    </div>
  );
}

// A character's photo, or their initials when there is none (or it fails to load).
import { useState } from 'react';
import { cn } from '@/components/ui/cn.ts';
import { initials } from '@/components/ui/initials.ts';
import type { AppCharacter } from '@/lib/wire.ts';

export function CharacterAvatar({ character, className }: { character: AppCharacter; className?: string }) {
  const [failed, setFailed] = useState(false);
  const box = cn('shrink-0 rounded-full', className ?? 'size-7');
  if (character.photoUrl && !failed) {
    // The name is always shown beside the avatar, so the image itself is decorative.
    return <img src={character.photoUrl} alt="" onError={() => setFailed(true)} className={cn(box, 'object-cover')} />;
  }
  return (
    <span aria-hidden="true" className={cn(box, 'inline-flex items-center justify-center bg-primary text-xs font-semibold text-primary-foreground')}>
      {initials(character.name)}
    </span>
  );
}

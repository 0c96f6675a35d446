'use client';
// The editor's avatar: the current one or a preview of the file picked (shown from a local blob: URL until saved;
// the server then resizes it to 512×512). The file is checked for type and size here so a mistake is caught at once.
// data-testid: avatar-input, avatar-preview, avatar-error.
import { useTranslations } from 'use-intl';
import { useEffect, useMemo } from 'react';
import { CharacterAvatar } from '@/components/characters/character-avatar.tsx';
import { AVATAR_TYPES, avatarProblem } from '@/components/characters/draft.ts';

export function AvatarField({
  slug,
  name,
  currentUrl,
  file,
  onFile,
  error,
  onError,
}: {
  slug: string;
  name: string;
  currentUrl: string | null;
  file: File | null;
  onFile: (f: File | null) => void;
  error: string | null;
  onError: (e: string | null) => void;
}) {
  const t = useTranslations('characters');
  const td = useTranslations('characterDraft');
  const previewUrl = useMemo(() => (file ? URL.createObjectURL(file) : null), [file]);
  useEffect(() => {
    if (!previewUrl) return;
    return () => URL.revokeObjectURL(previewUrl);
  }, [previewUrl]);
  return (
    <div className="flex items-center gap-4">
      <div data-testid="avatar-preview" data-local={file ? 'true' : 'false'}>
        <CharacterAvatar
          key={previewUrl ?? currentUrl ?? ''}
          slug={slug || 'new'}
          name={name || t('new')}
          photoUrl={previewUrl ?? currentUrl}
          className="size-20"
        />
      </div>
      <div className="flex min-w-0 flex-1 flex-col gap-1">
        <label htmlFor="character-avatar" className="text-sm font-medium">
          {t('avatar')}
        </label>
        <input
          id="character-avatar"
          type="file"
          accept={AVATAR_TYPES.join(',')}
          aria-describedby="character-avatar-hint"
          aria-invalid={error ? true : undefined}
          data-testid="avatar-input"
          className="text-sm file:mr-3 file:rounded-lg file:border file:border-border file:bg-background file:px-3 file:py-1.5 file:text-foreground"
          onChange={(e) => {
            const f = e.target.files?.[0] ?? null;
            const problem = f && avatarProblem(f);
            onError(problem && td(problem));
            onFile(problem ? null : f);
            if (problem) e.target.value = '';
          }}
        />
        <p id="character-avatar-hint" className="text-xs text-muted-foreground">
          {t('avatarHint')}
        </p>
        {error && (
          <p className="text-sm text-error" role="alert" data-testid="avatar-error">
            {error}
          </p>
        )}
      </div>
    </div>
  );
}

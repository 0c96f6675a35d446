'use client';
// The character editor (new and edit): the fields, the avatar, the publish switch and, beside them, a live preview
// chat with the unsaved draft. Saving creates or updates the character, then uploads a new avatar, then publishes
// if asked, and opens the character's page.
// data-testid: character-editor, character-name-input, character-description-input, character-tags-input,
// character-instructions-input, character-first-message-input, character-example-input, character-model,
// character-temperature, character-web, character-slug-input, character-publish, character-save, editor-error
// (plus avatar-field.tsx's and preview-chat.tsx's).
import { useTranslations } from 'use-intl';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useRef, useState } from 'react';
import { call } from '@/components/api/client.ts';
import { useModels } from '@/components/chat/chat-queries.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { InputField, SelectField } from '@/components/ui/fields.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { AvatarField } from '@/components/characters/avatar-field.tsx';
import { type Draft, LIMITS, draftOf, draftProblems, emptyDraft, inputOf } from '@/components/characters/draft.ts';
import { PreviewChat } from '@/components/characters/preview-chat.tsx';
import { charKeys, characterPath } from '@/components/characters/queries.ts';
import { TextArea } from '@/components/characters/text-area.tsx';
import type { CharacterDetail, Visibility } from '@/components/characters/types.ts';

export function CharacterEditor({ existing }: { existing?: CharacterDetail }) {
  const t = useTranslations('characters');
  const tc = useTranslations('common');
  const td = useTranslations('characterDraft');
  const router = useRouter();
  const toast = useToast();
  const qc = useQueryClient();
  const models = useModels().data ?? [];
  const [draft, setDraft] = useState<Draft>(existing ? draftOf(existing) : emptyDraft);
  const [slug, setSlug] = useState(existing?.slug ?? '');
  const [publish, setPublish] = useState(existing?.visibility === 'public');
  const [avatar, setAvatar] = useState<File | null>(null);
  const [avatarError, setAvatarError] = useState<string | null>(null);
  const [tried, setTried] = useState(false);
  // A character created by an earlier attempt whose later step (the avatar) failed: a retry updates it instead.
  const created = useRef<CharacterDetail | null>(null);
  const problems = draftProblems(draft);
  const shown = Object.fromEntries(Object.entries(tried ? problems : {}).map(([k, p]) => [k, td(p.key, p.values)])) as Partial<Record<keyof Draft, string>>;
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setDraft((d) => ({ ...d, [k]: v }));
  const input = inputOf(draft);

  const save = useMutation({
    mutationFn: async (): Promise<CharacterDetail> => {
      const base = existing ?? created.current;
      const visibility: Visibility = publish ? 'public' : 'private';
      let c: CharacterDetail;
      if (base) {
        // The Public ID can change only while the character is private.
        const slugChange = existing && base.visibility === 'private' && slug.trim() && slug.trim() !== base.slug ? { slug: slug.trim() } : {};
        c = (await call('PATCH /characters/:slug', { params: { slug: base.slug }, body: { ...input, ...slugChange } })).character;
      } else {
        c = created.current = (await call('POST /characters', { body: input })).character;
      }
      if (avatar) c = (await call('PUT /characters/:slug/avatar', { params: { slug: c.slug }, raw: avatar })).character;
      if (c.visibility !== visibility) c = (await call('PATCH /characters/:slug', { params: { slug: c.slug }, body: { visibility } })).character;
      return c;
    },
    onSuccess: (c) => {
      qc.setQueryData(charKeys.one(c.slug), { character: c });
      void qc.invalidateQueries({ queryKey: charKeys.all });
      toast({
        message: c.visibility === 'public' ? t('savedPublished', { name: c.name }) : t('savedPrivate', { name: c.name }),
        tone: 'success',
      });
      router.push(characterPath(c.slug));
    },
    onSettled: () => {
      if (created.current) void qc.invalidateQueries({ queryKey: charKeys.all });
    },
  });

  const modelOptions = models.map((m) => ({ id: m.id, name: m.name }));
  if (draft.modelId && !modelOptions.some((m) => m.id === draft.modelId))
    modelOptions.push({ id: draft.modelId, name: t('notAvailable', { model: draft.modelId }) });

  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_24rem]" data-testid="character-editor">
      <form
        noValidate
        className="flex min-w-0 flex-col gap-5"
        onSubmit={(e) => {
          e.preventDefault();
          setTried(true);
          if (!Object.keys(problems).length && !save.isPending) save.mutate();
        }}
      >
        <AvatarField
          slug={slug}
          name={draft.name}
          currentUrl={existing?.avatarUrl ?? null}
          file={avatar}
          onFile={setAvatar}
          error={avatarError}
          onError={setAvatarError}
        />
        <InputField
          id="character-name"
          label={t('name')}
          required
          maxLength={LIMITS.name}
          value={draft.name}
          onChange={(e) => set('name', e.target.value)}
          error={shown.name}
          data-testid="character-name-input"
        />
        {existing && existing.visibility === 'private' && (
          <InputField
            id="character-slug"
            label={t('publicId')}
            hint={t('publicIdHint')}
            value={slug}
            onChange={(e) => setSlug(e.target.value)}
            data-testid="character-slug-input"
          />
        )}
        <TextArea
          id="character-description"
          label={t('description')}
          hint={t('descriptionHint')}
          rows={3}
          maxLength={LIMITS.description}
          value={draft.description}
          onChange={(e) => set('description', e.target.value)}
          data-testid="character-description-input"
        />
        <InputField
          id="character-tags"
          label={t('tags')}
          hint={t('tagsHint', { max: LIMITS.tags })}
          value={draft.tags}
          onChange={(e) => set('tags', e.target.value)}
          error={shown.tags}
          data-testid="character-tags-input"
        />
        <TextArea
          id="character-instructions"
          label={t('instructions')}
          hint={t('instructionsHint')}
          rows={8}
          maxLength={LIMITS.instructions}
          value={draft.instructions}
          onChange={(e) => set('instructions', e.target.value)}
          data-testid="character-instructions-input"
        />
        <TextArea
          id="character-first-message"
          label={t('firstMessage')}
          hint={t('firstMessageHint')}
          rows={3}
          maxLength={LIMITS.firstMessage}
          value={draft.firstMessage}
          onChange={(e) => set('firstMessage', e.target.value)}
          data-testid="character-first-message-input"
        />
        <TextArea
          id="character-example"
          label={t('example')}
          hint={t('exampleHint')}
          rows={4}
          maxLength={LIMITS.exampleDialogue}
          value={draft.exampleDialogue}
          onChange={(e) => set('exampleDialogue', e.target.value)}
          data-testid="character-example-input"
        />
        <div className="grid gap-4 sm:grid-cols-2">
          <SelectField
            id="character-model"
            label={t('preferredModel')}
            value={draft.modelId}
            onChange={(e) => set('modelId', e.target.value)}
            data-testid="character-model"
          >
            <option value="">{t('chatDefaultModel')}</option>
            {modelOptions.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </SelectField>
          <InputField
            id="character-temperature"
            label={t('temperature')}
            type="number"
            inputMode="decimal"
            min={0}
            max={2}
            step={0.1}
            placeholder={t('modelDefault')}
            hint={t('temperatureHint')}
            value={draft.temperature}
            onChange={(e) => set('temperature', e.target.value)}
            error={shown.temperature}
            data-testid="character-temperature"
          />
        </div>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={draft.webEnabled}
            onChange={(e) => set('webEnabled', e.target.checked)}
            className="size-4"
            data-testid="character-web"
          />
          {t('webSearch')}
        </label>
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" checked={publish} onChange={(e) => setPublish(e.target.checked)} className="mt-0.5 size-4" data-testid="character-publish" />
          <span>
            <span className="font-medium">{t('published')}</span>
            <span className="block text-muted-foreground">{t('publishedNote')}</span>
          </span>
        </label>
        {save.isError && (
          <Alert title={t('saveFailed')} data-testid="editor-error">
            {save.error.message}
          </Alert>
        )}
        <div className="flex flex-wrap gap-2">
          <Button type="submit" pending={save.isPending} data-testid="character-save">
            {existing ? t('saveChanges') : t('create')}
          </Button>
          <Button variant="ghost" onClick={() => router.push(existing ? characterPath(existing.slug) : '/characters')}>
            {tc('cancel')}
          </Button>
        </div>
      </form>
      <div className="lg:sticky lg:top-4 lg:self-start">
        <PreviewChat
          name={draft.name.trim()}
          draft={{
            ...(draft.name.trim() ? { name: draft.name.trim() } : {}),
            instructions: input.instructions,
            firstMessage: input.firstMessage,
            exampleDialogue: input.exampleDialogue,
            modelId: input.modelId,
            temperature: input.temperature,
          }}
        />
      </div>
    </div>
  );
}

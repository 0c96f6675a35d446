'use client';
// What the owner can do on a character's page (edit, publish or unpublish, export as a card, delete) and what the
// operator can do to anyone's published character (unpublish it).
// data-testid: edit-character, publish-toggle, export-menu, export-{v2,v3}-{json,png}, delete-character,
// operator-unpublish.
import { useTranslations } from 'use-intl';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { APP_API, call } from '@/components/api/client.ts';
import { Button, buttonClasses } from '@/components/ui/button.tsx';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { DownloadIcon, PencilIcon, TrashIcon } from '@/components/ui/icons.tsx';
import { Menu, MenuLink } from '@/components/ui/menu.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { charKeys, characterPath } from '@/components/characters/queries.ts';
import type { CharacterDetail, Visibility } from '@/components/characters/types.ts';

const EXPORTS = [
  { format: 'v2', as: 'json' },
  { format: 'v2', as: 'png' },
  { format: 'v3', as: 'json' },
  { format: 'v3', as: 'png' },
] as const;

function useCharacterWrite() {
  const qc = useQueryClient();
  return (c: CharacterDetail) => {
    qc.setQueryData(charKeys.one(c.slug), { character: c });
    void qc.invalidateQueries({ queryKey: charKeys.all });
  };
}

export function OwnerActions({ character }: { character: CharacterDetail }) {
  const t = useTranslations('characters');
  const tc = useTranslations('common');
  const { slug, name, visibility } = character;
  const router = useRouter();
  const toast = useToast();
  const qc = useQueryClient();
  const written = useCharacterWrite();
  const [confirming, setConfirming] = useState(false);
  const publish = useMutation({
    mutationFn: (v: Visibility) => call('PATCH /characters/:slug', { params: { slug }, body: { visibility: v } }),
    onSuccess: ({ character: c }) => {
      written(c);
      toast({
        message: c.visibility === 'public' ? t('nowPublished', { name: c.name }) : t('nowPrivate', { name: c.name }),
        tone: 'success',
      });
    },
    onError: (e) => toast({ message: e.message, tone: 'error' }),
  });
  const remove = useMutation({
    mutationFn: () => call('DELETE /characters/:slug', { params: { slug } }),
    onSuccess: () => {
      qc.removeQueries({ queryKey: charKeys.one(slug) });
      void qc.invalidateQueries({ queryKey: charKeys.all });
      toast({ message: t('deleted', { name }), tone: 'success' });
      router.push('/characters?scope=mine');
    },
    onError: (e) => {
      setConfirming(false);
      toast({ message: e.message, tone: 'error' });
    },
  });

  return (
    <div className="flex flex-wrap gap-2" data-testid="owner-actions">
      <Link href={characterPath(slug, '/edit')} className={buttonClasses('secondary', 'md')} data-testid="edit-character">
        <PencilIcon className="size-4" /> {tc('edit')}
      </Link>
      <Button
        variant="secondary"
        pending={publish.isPending}
        onClick={() => publish.mutate(visibility === 'public' ? 'private' : 'public')}
        data-testid="publish-toggle"
      >
        {visibility === 'public' ? t('unpublish') : t('publish')}
      </Button>
      <Menu
        label={t('exportAs')}
        labelledByContent
        trigger={
          <>
            <DownloadIcon className="size-4" /> {t('export')}
          </>
        }
        triggerClassName={buttonClasses('secondary', 'md')}
        testId="export-menu"
      >
        {EXPORTS.map((e) => (
          <MenuLink
            key={`${e.format}-${e.as}`}
            href={`${APP_API}${characterPath(slug, '/export')}?format=${e.format}&as=${e.as}`}
            download
            testId={`export-${e.format}-${e.as}`}
          >
            {t('cardFormat', { version: e.format.toUpperCase(), as: e.as })}
          </MenuLink>
        ))}
      </Menu>
      <Button variant="secondary" onClick={() => setConfirming(true)} data-testid="delete-character">
        <TrashIcon className="size-4" /> {tc('delete')}
      </Button>
      <ConfirmDialog
        open={confirming}
        title={t('deleteTitle', { name })}
        message={t('deleteMessage')}
        confirmLabel={t('deleteConfirm')}
        pending={remove.isPending}
        onConfirm={() => remove.mutate()}
        onCancel={() => setConfirming(false)}
      />
    </div>
  );
}

export function OperatorActions({ character }: { character: CharacterDetail }) {
  const t = useTranslations('characters');
  const toast = useToast();
  const router = useRouter();
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const unpublish = useMutation({
    mutationFn: () => call('POST /operator/characters/:slug/unpublish', { params: { slug: character.slug } }),
    onSuccess: ({ character: c }) => {
      setConfirming(false);
      // Private now, so it is its owner's alone: the operator can no longer open its page.
      qc.removeQueries({ queryKey: charKeys.one(character.slug) });
      void qc.invalidateQueries({ queryKey: charKeys.all });
      toast({ message: t('noLongerPublished', { name: c.name }), tone: 'success' });
      router.push('/characters');
    },
    onError: (e) => {
      setConfirming(false);
      toast({ message: e.message, tone: 'error' });
    },
  });
  if (character.visibility !== 'public') return null;
  return (
    <>
      <Button variant="danger" onClick={() => setConfirming(true)} data-testid="operator-unpublish">
        {t('operatorUnpublish')}
      </Button>
      <ConfirmDialog
        open={confirming}
        title={t('unpublishTitle', { name: character.name })}
        message={t('unpublishMessage')}
        confirmLabel={t('unpublish')}
        pending={unpublish.isPending}
        onConfirm={() => unpublish.mutate()}
        onCancel={() => setConfirming(false)}
      />
    </>
  );
}

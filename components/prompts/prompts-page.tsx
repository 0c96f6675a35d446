'use client';
// The prompt library (/prompts): the user's own saved prompts (only they see them) and the ones the operator shares
// with everyone (the operator adds, edits and deletes those here too). Typing `/` at the start of a message in the
// chat lists them all; the one picked is put into the message box.
// data-testid: prompts-page, prompt-new, prompt-shared-new, prompt-list, prompt-shared-list, prompt-item (data-id,
// data-shared), prompt-edit, prompt-delete (plus prompt-form.tsx's).
import { useTranslations } from 'use-intl';
import { useState } from 'react';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { PencilIcon, TrashIcon } from '@/components/ui/icons.tsx';
import { EmptyState, QueryContent } from '@/components/ui/query-state.tsx';
import { Section } from '@/components/usage/section.tsx';
import type { AppPrompt, AppPromptList } from '@/lib/wire.ts';
import { PromptForm } from './prompt-form.tsx';
import { useCreatePrompt, useDeletePrompt, useUpdatePrompt, usePrompts } from './queries.ts';

function PromptItem({ prompt, canEdit, limits }: { prompt: AppPrompt; canEdit: boolean; limits: AppPromptList }) {
  const t = useTranslations('prompts');
  const tc = useTranslations('common');
  const update = useUpdatePrompt();
  const remove = useDeletePrompt();
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  return (
    <li data-testid="prompt-item" data-id={prompt.id} data-shared={prompt.shared} className="flex flex-col gap-2 rounded-xl border border-border p-3">
      {editing ? (
        <PromptForm
          initial={prompt}
          maxTitle={limits.maxTitle}
          maxChars={limits.maxChars}
          submitLabel={tc('save')}
          pending={update.isPending}
          error={update.error}
          testId="prompt-edit-form"
          onCancel={() => setEditing(false)}
          onSubmit={(body) => update.mutate({ id: prompt.id, shared: prompt.shared, body }, { onSuccess: () => setEditing(false) })}
        />
      ) : (
        <>
          <div className="flex items-start justify-between gap-2">
            <h3 className="font-medium break-words" data-testid="prompt-item-title">
              {prompt.title}
            </h3>
            {canEdit && (
              <span className="flex shrink-0 items-center gap-1">
                <IconButton size="sm" label={t('editPrompt', { title: prompt.title })} data-testid="prompt-edit" onClick={() => setEditing(true)}>
                  <PencilIcon className="size-4" />
                </IconButton>
                <IconButton size="sm" label={t('deletePrompt', { title: prompt.title })} data-testid="prompt-delete" onClick={() => setConfirming(true)}>
                  <TrashIcon className="size-4" />
                </IconButton>
              </span>
            )}
          </div>
          <p className="line-clamp-4 text-sm whitespace-pre-wrap break-words text-muted-foreground">{prompt.content}</p>
        </>
      )}
      <ConfirmDialog
        open={confirming}
        title={t('deleteTitle', { title: prompt.title })}
        message={prompt.shared ? t('deleteShared') : t('deleteOwn')}
        confirmLabel={tc('delete')}
        pending={remove.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => remove.mutate({ id: prompt.id, shared: prompt.shared }, { onSuccess: () => setConfirming(false) })}
      />
    </li>
  );
}

function AddPrompt({ shared, limits }: { shared: boolean; limits: AppPromptList }) {
  const t = useTranslations('prompts');
  const create = useCreatePrompt();
  return (
    <PromptForm
      maxTitle={limits.maxTitle}
      maxChars={limits.maxChars}
      submitLabel={shared ? t('shareWithEveryone') : t('savePrompt')}
      pending={create.isPending}
      error={create.error}
      testId={shared ? 'prompt-shared-new' : 'prompt-new'}
      onSubmit={(body, done) => create.mutate({ shared, body }, { onSuccess: done })}
    />
  );
}

export function PromptsPage() {
  const t = useTranslations('prompts');
  const list = usePrompts();
  return (
    <div className="flex-1 overflow-y-auto" data-testid="prompts-page">
      <div className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-6 sm:px-6 sm:py-8">
        <header className="flex flex-col gap-2">
          <h1 className="text-2xl font-semibold tracking-tight">{t('title')}</h1>
          <p className="text-sm text-muted-foreground">
            {t.rich('intro', {
              example: '{{name}}',
              kbd: (key) => <kbd className="rounded border border-border px-1">{key}</kbd>,
              code: (words) => <code>{words}</code>,
            })}
          </p>
        </header>
        <QueryContent query={list} loading={t('loading')} failed={t('failed')}>
          {(data) => {
            const own = data.items.filter((p) => !p.shared);
            const shared = data.items.filter((p) => p.shared);
            return (
              <>
                <Section id="prompt-add" title={t('add')}>
                  <AddPrompt shared={false} limits={data} />
                </Section>
                <Section id="prompt-list" title={t('yours')} note={t('count', { count: own.length, max: data.max })}>
                  {own.length === 0 ? (
                    <EmptyState testId="prompt-empty">{t('none')}</EmptyState>
                  ) : (
                    <ul className="flex flex-col gap-2" data-testid="prompt-list">
                      {own.map((p) => (
                        <PromptItem key={p.id} prompt={p} canEdit limits={data} />
                      ))}
                    </ul>
                  )}
                </Section>
                <Section id="prompt-shared" title={t('shared')} note={data.canShare ? t('sharedByYou') : t('sharedByOperator')}>
                  {data.canShare && <AddPrompt shared limits={data} />}
                  {shared.length === 0 ? (
                    <EmptyState testId="prompt-shared-empty">{t('noneShared')}</EmptyState>
                  ) : (
                    <ul className="flex flex-col gap-2" data-testid="prompt-shared-list">
                      {shared.map((p) => (
                        <PromptItem key={p.id} prompt={p} canEdit={data.canShare} limits={data} />
                      ))}
                    </ul>
                  )}
                </Section>
              </>
            );
          }}
        </QueryContent>
      </div>
    </div>
  );
}

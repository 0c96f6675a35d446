'use client';
// Creating a key: its type (ADMIN only where the session may create one), its fields, then the secret, shown once in
// a dialog with a copy button, a warning and the examples already holding it. Closing the dialog forgets the secret
// (the mutation's state is reset); the server never sends it again.
// data-testid: create-key, key-type-inference, key-type-admin, create-key-submit, create-key-error, secret-dialog,
// new-key-secret, copy-secret, secret-done, new-key-snippets.
import { useTranslations } from 'use-intl';
import { type FormEvent, useId, useState } from 'react';
import { capError, EMPTY_KEY_FORM, KeyFields, type KeyFormValues, toLimits } from '@/components/keys/key-form.tsx';
import { useCreateKey, useDefaultModel } from '@/components/keys/queries.ts';
import { Snippets } from '@/components/keys/snippets.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Dialog } from '@/components/ui/dialog.tsx';
import type { ApiKeysReport } from '@/lib/wire.ts';

function SecretDialog({ secret, description, onDone }: { secret: string | null; description: string; onDone: () => void }) {
  const t = useTranslations('keyForm');
  const [copied, setCopied] = useState(false);
  const model = useDefaultModel();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret ?? '');
      setCopied(true);
    } catch {
      // The clipboard was refused (permissions): the field is selectable, so the key can still be copied by hand.
    }
  };
  return (
    <Dialog
      open={secret !== null}
      onClose={onDone}
      title={t('newKey')}
      description={t('ready', { name: description || t('unnamed') })}
      testId="secret-dialog"
      className="w-[min(40rem,calc(100vw-2rem))]"
      footer={
        <Button onClick={onDone} data-testid="secret-done">
          {t('saved')}
        </Button>
      }
    >
      {secret && (
        <>
          <Alert tone="info">{t('storeIt')}</Alert>
          <div className="flex flex-col gap-1.5">
            <p className="text-sm font-medium">{t('apiKey')}</p>
            <div className="flex items-start gap-2">
              {/* Text, not an input: every character (the underscores too) stays visible, and one click selects it all. */}
              <code
                className="min-w-0 flex-1 select-all break-all rounded-lg border border-input bg-muted px-3 py-2 font-mono text-sm leading-6"
                data-testid="new-key-secret"
              >
                {secret}
              </code>
              <Button variant="secondary" onClick={copy} data-testid="copy-secret" aria-live="polite">
                {copied ? t('copied') : t('copy')}
              </Button>
            </div>
          </div>
          <div className="flex flex-col gap-1.5">
            <p className="text-sm font-medium">{t('tryIt')}</p>
            <Snippets model={model} secret={secret} testId="new-key-snippets" />
          </div>
        </>
      )}
    </Dialog>
  );
}

export function CreateKey({ report }: { report: ApiKeysReport }) {
  const t = useTranslations('keyForm');
  const id = useId();
  const [type, setType] = useState<'INFERENCE' | 'ADMIN'>('INFERENCE');
  const [values, setValues] = useState<KeyFormValues>(EMPTY_KEY_FORM);
  const create = useCreateKey();
  const invalid = capError(values.usd) || capError(values.diem);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (invalid || create.isPending) return;
    create.mutate({
      apiKeyType: type,
      description: values.description.trim(),
      expiresAt: values.expires || null,
      ...toLimits(values),
    });
  };
  const done = () => {
    create.reset();
    setValues(EMPTY_KEY_FORM);
    setType('INFERENCE');
  };

  return (
    <>
      <form
        onSubmit={onSubmit}
        noValidate
        className="flex flex-col gap-4 rounded-xl border border-border bg-card p-5 text-card-foreground"
        data-testid="create-key"
      >
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 text-sm font-medium">{t('type')}</legend>
          <label className="flex items-start gap-2 text-sm">
            <input
              type="radio"
              name={`${id}-type`}
              checked={type === 'INFERENCE'}
              onChange={() => setType('INFERENCE')}
              className="mt-1"
              data-testid="key-type-inference"
            />
            <span>
              <span className="font-medium">{t('inference')}</span>
              <span className="block text-muted-foreground">{t('inferenceNote')}</span>
            </span>
          </label>
          <label className="flex items-start gap-2 text-sm">
            <input
              type="radio"
              name={`${id}-type`}
              checked={type === 'ADMIN'}
              onChange={() => setType('ADMIN')}
              disabled={!report.canCreateAdmin}
              className="mt-1"
              data-testid="key-type-admin"
            />
            <span>
              <span className="font-medium">{t('admin')}</span>
              <span className="block text-muted-foreground">{report.canCreateAdmin ? t('adminNote') : t('adminEmailOnly')}</span>
            </span>
          </label>
        </fieldset>
        <KeyFields idPrefix={`${id}-new`} values={values} onChange={setValues} descriptionMax={report.descriptionMax} />
        {create.isError && <Alert data-testid="create-key-error">{create.error.message}</Alert>}
        <Button type="submit" className="self-start" pending={create.isPending} disabled={Boolean(invalid)} data-testid="create-key-submit">
          {t('create')}
        </Button>
      </form>
      {/* Outside the form: Enter in the dialog must never submit another key. */}
      <SecretDialog secret={create.data?.secret ?? null} description={create.data?.key.description ?? ''} onDone={done} />
    </>
  );
}

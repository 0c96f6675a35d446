'use client';
// Passkeys on the account page: the list (name, when added and last used), "Add a passkey" (the browser's own
// WebAuthn dialog, through @simplewebauthn/browser), and removing one. A passkey signs in on its own, no password.
// data-testid: passkeys, passkey-row, passkey-name, passkey-add, passkey-delete, passkey-error.
import { useTranslations } from 'use-intl';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { startRegistration } from '@simplewebauthn/browser';
import { useId, useState } from 'react';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { InputField } from '@/components/ui/fields.tsx';
import { useFormat } from '@/components/i18n/format.ts';

const KEY = ['account', 'passkeys'] as const;

export function PasskeySettings() {
  const t = useTranslations('passkeys');
  const tc = useTranslations('common');
  const fmt = useFormat();
  const id = useId();
  const qc = useQueryClient();
  const list = useQuery({ queryKey: KEY, queryFn: ({ signal }) => call('GET /account/passkeys', { signal }) });
  const [name, setName] = useState('');
  const add = useMutation({
    mutationFn: async () => {
      const optionsJSON = await call('POST /account/passkeys/options');
      const response = await startRegistration({ optionsJSON });
      return call('POST /account/passkeys', { body: { response: response as unknown as Record<string, unknown>, name: name.trim() || undefined } });
    },
    onSuccess: () => {
      setName('');
      void qc.invalidateQueries({ queryKey: ['account'] });
    },
  });
  const remove = useMutation({
    mutationFn: (passkeyId: string) => call('DELETE /account/passkeys/:id', { params: { id: passkeyId } }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['account'] }),
  });
  const error = add.error ?? remove.error;
  const cancelled = error instanceof Error && error.name === 'NotAllowedError';

  return (
    <section className="flex flex-col gap-3 sm:max-w-md" data-testid="passkeys" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`} className="font-medium">
        {t('title')}
      </h3>
      <p className="text-sm text-muted-foreground">
        {t('intro')}
        {list.data ? t('for', { rpId: list.data.rpId }) : ''}.
      </p>
      {list.data && list.data.passkeys.length > 0 && (
        <ul className="flex flex-col divide-y divide-border rounded-lg border border-border">
          {list.data.passkeys.map((p) => (
            <li key={p.id} className="flex items-center justify-between gap-3 px-3 py-2 text-sm" data-testid="passkey-row" data-id={p.id}>
              <span>
                <span className="font-medium" data-testid="passkey-name">
                  {p.name}
                </span>
                <span className="text-muted-foreground">
                  {' '}
                  {t('added', { when: fmt.date(p.createdAt) })}
                  {p.lastUsedAt ? t('lastUsed', { when: fmt.date(p.lastUsedAt) }) : t('notUsed')}
                </span>
              </span>
              <Button
                size="sm"
                variant="secondary"
                onClick={() => remove.mutate(p.id)}
                pending={remove.isPending && remove.variables === p.id}
                data-testid="passkey-delete"
              >
                {tc('remove')}
              </Button>
            </li>
          ))}
        </ul>
      )}
      {error && <Alert data-testid="passkey-error">{cancelled ? t('cancelled') : error.message}</Alert>}
      <InputField
        id={`${id}-name`}
        label={t('name')}
        placeholder={t('namePlaceholder')}
        maxLength={60}
        value={name}
        onChange={(e) => setName(e.target.value)}
        data-testid="passkey-name-input"
      />
      <div>
        <Button size="sm" onClick={() => add.mutate()} pending={add.isPending} data-testid="passkey-add">
          {t('add')}
        </Button>
      </div>
    </section>
  );
}

'use client';
// Before any private chat: set the passphrase (first time) or unlock with it. The key it derives stays in this
// page's memory; losing the passphrase loses the chats, which the server cannot open either.
// data-testid: private-passphrase, private-passphrase-confirm, private-vault-create, private-unlock-passphrase,
// private-unlock, private-vault-error.
import { useTranslations } from 'use-intl';
import { useState } from 'react';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { InputField } from '@/components/ui/fields.tsx';
import type { PrivateVaultView } from '@/lib/wire.ts';
import { CHECK_TEXT, newSalt, openText, sealText, vaultKey } from './crypto.ts';

export function VaultGate({ vault, onUnlocked }: { vault: PrivateVaultView | null; onUnlocked: (key: CryptoKey) => void }) {
  const t = useTranslations('private');
  const [pass, setPass] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function create() {
    if (pass.length < 10) return setError(t('tooShort'));
    if (pass !== confirm) return setError(t('differ'));
    setBusy(true);
    setError('');
    try {
      const salt = newSalt();
      const key = await vaultKey(pass, salt);
      await call('PUT /private/vault', { body: { salt, check: await sealText(key, CHECK_TEXT) } });
      onUnlocked(key);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  async function unlock() {
    if (!vault) return;
    setBusy(true);
    setError('');
    try {
      const key = await vaultKey(pass, vault.salt);
      const ok = await openText(key, vault.check).then(
        (text) => text === CHECK_TEXT,
        () => false,
      );
      if (!ok) return setError(t('wrongPassphrase'));
      onUnlocked(key);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      className="mx-auto flex w-full max-w-md flex-col gap-4 rounded-xl border border-border p-6"
      onSubmit={(e) => {
        e.preventDefault();
        void (vault ? unlock() : create());
      }}
    >
      <h2 className="text-lg font-semibold">{vault ? t('unlockTitle') : t('setTitle')}</h2>
      <p className="text-sm text-muted-foreground">{vault ? t('unlockNote') : t('setNote')}</p>
      {vault ? (
        <InputField
          id="private-unlock-passphrase"
          data-testid="private-unlock-passphrase"
          label={t('passphrase')}
          type="password"
          autoComplete="current-password"
          value={pass}
          onChange={(e) => setPass(e.target.value)}
        />
      ) : (
        <>
          <InputField
            id="private-passphrase"
            data-testid="private-passphrase"
            label={t('passphrase')}
            type="password"
            autoComplete="new-password"
            hint={t('passphraseHint')}
            value={pass}
            onChange={(e) => setPass(e.target.value)}
          />
          <InputField
            id="private-passphrase-confirm"
            data-testid="private-passphrase-confirm"
            label={t('again')}
            type="password"
            autoComplete="new-password"
            value={confirm}
            onChange={(e) => setConfirm(e.target.value)}
          />
        </>
      )}
      {error && (
        <Alert data-testid="private-vault-error" tone="error">
          {error}
        </Alert>
      )}
      <Button type="submit" pending={busy} data-testid={vault ? 'private-unlock' : 'private-vault-create'}>
        {vault ? t('unlock') : t('create')}
      </Button>
    </form>
  );
}

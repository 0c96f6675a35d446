'use client';
// Settings' "Sign-in methods": every way into this account (email and password, a wallet, single sign-on, passkeys),
// so one person keeps one balance whichever way they sign in. An email user links a wallet by signing the same
// challenge as a wallet sign-in (the wallet code loads only when asked for) and unlinks it; a wallet user adds an
// email and password; an email user links the single sign-on provider when the server has one. The last way in is
// never offered for removal (the server refuses it too).
// data-testid: sign-in-methods, method-email, method-wallet, method-sso, method-passkeys, wallet-link-start,
// wallet-unlink, wallet-unlink-why, add-email-form, add-email, add-email-password, add-email-save, sso-link,
// sign-in-methods-done, sign-in-methods-error.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import dynamic from 'next/dynamic';
import { type FormEvent, useId, useState } from 'react';
import { useTranslations } from 'use-intl';
import { AppApiError, call, qk } from '@/components/api/client.ts';
import { PasswordField } from '@/components/auth/password-field.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { InputField } from '@/components/ui/fields.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import type { AppUser, MeResponse } from '@/lib/wire.ts';

const KEY = ['account', 'sign-in-methods'] as const;

const WalletLink = dynamic(() => import('@/components/wallet/wallet-link.tsx'), {
  ssr: false,
  loading: () => <Spinner label="…" className="size-5" />,
});

const chainName = (chain: 'evm' | 'solana') => (chain === 'evm' ? 'Base' : 'Solana');
const paramOf = (e: unknown): string | undefined => (e instanceof AppApiError && typeof e.body.param === 'string' ? e.body.param : undefined);

function AddEmailForm({ onAdded }: { onAdded: (verificationSent: boolean) => void }) {
  const t = useTranslations('signInMethods');
  const id = useId();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const add = useMutation({
    mutationFn: () => call('POST /account/email', { body: { email, password } }),
    onSuccess: (r) => onAdded(r.verificationSent),
  });
  const param = paramOf(add.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  return (
    <form onSubmit={submit} className="flex flex-col gap-3 sm:max-w-sm" data-testid="add-email-form" aria-labelledby={`${id}-h`}>
      <h4 id={`${id}-h`} className="text-sm font-medium">
        {t('addEmailTitle')}
      </h4>
      <p className="text-sm text-muted-foreground">{t('addEmailNote')}</p>
      <InputField
        id={`${id}-email`}
        label={t('emailLabel')}
        type="email"
        autoComplete="email"
        required
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={param === 'email' ? add.error?.message : undefined}
        data-testid="add-email"
      />
      <PasswordField
        id={`${id}-password`}
        label={t('passwordLabel')}
        autoComplete="new-password"
        required
        minLength={10}
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={param === 'password' ? add.error?.message : undefined}
        data-testid="add-email-password"
      />
      {add.isError && param !== 'email' && param !== 'password' && <Alert data-testid="sign-in-methods-error">{add.error.message}</Alert>}
      <div>
        <Button type="submit" size="sm" pending={add.isPending} data-testid="add-email-save">
          {t('addEmail')}
        </Button>
      </div>
    </form>
  );
}

export function SignInMethods({ user }: { user: AppUser }) {
  const t = useTranslations('signInMethods');
  const id = useId();
  const qc = useQueryClient();
  const methods = useQuery({ queryKey: KEY, queryFn: ({ signal }) => call('GET /account/sign-in-methods', { signal }) });
  const [linking, setLinking] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const refresh = (me?: MeResponse) => {
    if (me) qc.setQueryData(qk.me, me);
    void qc.invalidateQueries({ queryKey: qk.me });
    void qc.invalidateQueries({ queryKey: qk.account });
  };
  const unlink = useMutation({
    mutationFn: () => call('DELETE /account/wallet'),
    onSuccess: (me) => {
      setDone(t('unlinked'));
      refresh(me);
    },
  });
  const ssoLink = useMutation({
    mutationFn: () => call('POST /account/sso/link'),
    onSuccess: ({ url }) => window.location.assign(url),
  });
  const m = methods.data;
  const error = unlink.error ?? ssoLink.error ?? methods.error;

  return (
    <section className="flex flex-col gap-3 sm:max-w-md" data-testid="sign-in-methods" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`} className="font-medium">
        {t('title')}
      </h3>
      <p className="text-sm text-muted-foreground">{t('intro')}</p>
      {!m ? (
        methods.isPending && <Spinner label={t('loading')} className="size-5" />
      ) : (
        <ul className="flex flex-col divide-y divide-border rounded-lg border border-border text-sm">
          <li className="flex flex-wrap items-center justify-between gap-2 px-3 py-2" data-testid="method-email" data-present={m.email ? 'true' : 'false'}>
            <span>
              <span className="font-medium">{t('email')}</span>{' '}
              <span className="text-muted-foreground">
                {m.email ? (m.password ? t('emailWithPassword', { email: m.email }) : t('emailNoPassword', { email: m.email })) : t('none')}
              </span>
            </span>
          </li>
          <li className="flex flex-col gap-2 px-3 py-2" data-testid="method-wallet" data-address={m.wallet?.address ?? ''}>
            <div className="flex flex-wrap items-center justify-between gap-2">
              <span className="min-w-0">
                <span className="font-medium">{t('wallet')}</span>{' '}
                <span className="break-all text-muted-foreground">
                  {m.wallet ? t(m.wallet.own ? 'walletOwn' : 'walletLinked', { chain: chainName(m.wallet.chain), address: m.wallet.address }) : t('none')}
                </span>
              </span>
              {m.wallet && !m.wallet.own && (
                <Button
                  size="sm"
                  variant="secondary"
                  disabled={!m.canUnlinkWallet}
                  pending={unlink.isPending}
                  onClick={() => unlink.mutate()}
                  data-testid="wallet-unlink"
                >
                  {t('unlink')}
                </Button>
              )}
              {!m.wallet && !user.wallet && !linking && (
                <Button
                  size="sm"
                  variant="secondary"
                  onClick={() => {
                    setDone(null);
                    setLinking(true);
                  }}
                  data-testid="wallet-link-start"
                >
                  {t('linkWallet')}
                </Button>
              )}
            </div>
            {m.wallet && !m.wallet.own && !m.canUnlinkWallet && (
              <p className="text-xs text-muted-foreground" data-testid="wallet-unlink-why">
                {t('lastMethod')}
              </p>
            )}
            {m.wallet?.own && <p className="text-xs text-muted-foreground">{t('walletOwnNote')}</p>}
            {!m.wallet && linking && (
              <WalletLink
                onLinked={(me) => {
                  setLinking(false);
                  setDone(t('linked'));
                  refresh(me);
                }}
              />
            )}
          </li>
          <li className="flex flex-wrap items-center justify-between gap-2 px-3 py-2" data-testid="method-sso" data-count={m.sso.identities.length}>
            <span>
              <span className="font-medium">{m.sso.name ?? t('sso')}</span>{' '}
              <span className="text-muted-foreground">
                {m.sso.identities.length ? m.sso.identities.map((i) => i.email || i.issuer).join(', ') : m.sso.enabled ? t('ssoNotLinked') : t('ssoOff')}
              </span>
            </span>
            {m.sso.enabled && !m.sso.identities.length && !user.wallet && (
              <Button size="sm" variant="secondary" pending={ssoLink.isPending} onClick={() => ssoLink.mutate()} data-testid="sso-link">
                {t('ssoLink', { name: m.sso.name ?? t('sso') })}
              </Button>
            )}
          </li>
          <li className="px-3 py-2" data-testid="method-passkeys" data-count={m.passkeys}>
            <span className="font-medium">{t('passkeys')}</span> <span className="text-muted-foreground">{t('passkeyCount', { count: m.passkeys })}</span>
          </li>
        </ul>
      )}
      {done && (
        <p role="status" className="text-sm text-success" data-testid="sign-in-methods-done">
          {done}
        </p>
      )}
      {error && <Alert data-testid="sign-in-methods-error">{error.message}</Alert>}
      {user.wallet && (
        <AddEmailForm
          onAdded={(sent) => {
            setDone(sent ? t('emailAddedSent') : t('emailAdded'));
            refresh();
          }}
        />
      )}
    </section>
  );
}

'use client';
// Two-step sign-in on the account page: off → "Set up" shows a new secret (to type into an authenticator app, or
// open as an otpauth:// link) and asks for a code from it; once confirmed, the recovery codes are shown this once.
// On → turning it off takes a current code or a recovery code. Without a secrets key on the server it says so.
// data-testid: two-factor, two-factor-state, totp-setup, totp-secret, totp-uri, totp-code, totp-confirm,
// recovery-codes, recovery-done, totp-disable-code, totp-disable, two-factor-error.
import { useTranslations } from 'use-intl';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { AppApiError, call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { InputField } from '@/components/ui/fields.tsx';

const KEY = ['account', 'two-factor'] as const;

export function TwoFactorSettings() {
  const t = useTranslations('twoFactor');
  const id = useId();
  const qc = useQueryClient();
  const info = useQuery({ queryKey: KEY, queryFn: ({ signal }) => call('GET /account/two-factor', { signal }) });
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  const begin = useMutation({ mutationFn: () => call('POST /account/two-factor/totp') });
  const confirm = useMutation({
    mutationFn: (c: string) => call('POST /account/two-factor/totp/confirm', { body: { code: c } }),
    onSuccess: (r) => {
      setCodes(r.recoveryCodes);
      setCode('');
      begin.reset();
      void qc.invalidateQueries({ queryKey: KEY });
    },
  });
  const disable = useMutation({
    mutationFn: (c: string) => call('POST /account/two-factor/totp/disable', { body: { code: c } }),
    onSuccess: () => {
      setCode('');
      void qc.invalidateQueries({ queryKey: KEY });
    },
  });
  const error = [begin.error, confirm.error, disable.error].find((e) => e instanceof AppApiError);
  const codeError = error instanceof AppApiError && error.body.param === 'code' ? error.message : undefined;

  const onConfirm = (e: FormEvent) => {
    e.preventDefault();
    if (code.trim()) confirm.mutate(code.trim());
  };
  const onDisable = (e: FormEvent) => {
    e.preventDefault();
    if (code.trim()) disable.mutate(code.trim());
  };

  const data = info.data;
  return (
    <section className="flex flex-col gap-3 sm:max-w-md" data-testid="two-factor" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`} className="font-medium">
        {t('title')}
      </h3>
      {data && (
        <p className="text-sm text-muted-foreground" data-testid="two-factor-state" data-on={data.totp ? 'true' : 'false'}>
          {data.totp ? t('on', { count: data.recoveryCodesLeft }) : data.available ? t('off') : t('unavailable')}
        </p>
      )}
      {error && !codeError && <Alert data-testid="two-factor-error">{error.message}</Alert>}

      {codes && (
        <div className="flex flex-col gap-2 rounded-lg border border-border p-3" data-testid="recovery-codes">
          <p className="text-sm">{t('recoveryCodes')}</p>
          <ul className="grid grid-cols-2 gap-1 font-mono text-sm">
            {codes.map((c) => (
              <li key={c} data-testid="recovery-code">
                {c}
              </li>
            ))}
          </ul>
          <Button size="sm" variant="secondary" onClick={() => setCodes(null)} data-testid="recovery-done">
            {t('saved')}
          </Button>
        </div>
      )}

      {data && !data.totp && data.available && !begin.data && (
        <div>
          <Button size="sm" onClick={() => begin.mutate()} pending={begin.isPending} data-testid="totp-setup">
            {t('setUp')}
          </Button>
        </div>
      )}

      {data && !data.totp && begin.data && (
        <form onSubmit={onConfirm} className="flex flex-col gap-3" data-testid="totp-enrol">
          <p className="text-sm">
            {t.rich('addKey', {
              link: (words) => (
                <a href={begin.data.uri} className="text-primary underline underline-offset-4" data-testid="totp-uri">
                  {words}
                </a>
              ),
            })}
          </p>
          <code className="break-all rounded bg-muted px-2 py-1 font-mono text-sm" data-testid="totp-secret">
            {begin.data.secret}
          </code>
          <InputField
            id={`${id}-code`}
            label={t('code')}
            autoComplete="one-time-code"
            inputMode="numeric"
            value={code}
            onChange={(e) => setCode(e.target.value)}
            error={codeError}
            data-testid="totp-code"
          />
          <div>
            <Button type="submit" size="sm" pending={confirm.isPending} data-testid="totp-confirm">
              {t('turnOn')}
            </Button>
          </div>
        </form>
      )}

      {data?.totp && !codes && (
        <form onSubmit={onDisable} className="flex flex-col gap-3" data-testid="totp-disable-form">
          <InputField
            id={`${id}-off`}
            label={t('offCode')}
            autoComplete="one-time-code"
            value={code}
            onChange={(e) => setCode(e.target.value)}
            error={codeError}
            data-testid="totp-disable-code"
          />
          <div>
            <Button type="submit" size="sm" variant="secondary" pending={disable.isPending} data-testid="totp-disable">
              {t('turnOff')}
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}

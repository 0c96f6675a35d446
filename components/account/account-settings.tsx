'use client';
// The user's own settings on the account page: the display name, and the password (the current one required; the
// server signs every other session out). Wallet users have no password, so only the name is offered to them.
// data-testid: profile-form, display-name, profile-save, profile-done, password-form, current-password,
// new-password, confirm-password, password-save, password-done, password-error.
import { useTranslations } from 'use-intl';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { AppApiError, call, qk } from '@/components/api/client.ts';
import { PasswordField } from '@/components/auth/password-field.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { InputField } from '@/components/ui/fields.tsx';
import { TwoFactorSettings } from '@/components/account/two-factor-settings.tsx';
import { EmailVerification } from '@/components/account/email-verification.tsx';
import { PasskeySettings } from '@/components/account/passkey-settings.tsx';
import { SignInMethods } from '@/components/account/sign-in-methods.tsx';
import type { AppUser } from '@/lib/wire.ts';

const PASSWORD_MIN = 10;

/** The field a 400 names, so its message shows under that field. */
const paramOf = (e: unknown): string | undefined => (e instanceof AppApiError && typeof e.body.param === 'string' ? e.body.param : undefined);

function ProfileForm({ user }: { user: AppUser }) {
  const t = useTranslations('accountSettings');
  const tc = useTranslations('common');
  const id = useId();
  const qc = useQueryClient();
  const [name, setName] = useState(user.displayName ?? '');
  const save = useMutation({
    mutationFn: (displayName: string) => call('PATCH /account/profile', { body: { displayName } }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: qk.me }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(name);
  };
  return (
    <form onSubmit={submit} className="flex flex-col gap-3" data-testid="profile-form" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`} className="font-medium">
        {t('displayName')}
      </h3>
      <InputField
        id={`${id}-name`}
        label={t('nameLabel')}
        value={name}
        maxLength={80}
        onChange={(e) => {
          setName(e.target.value);
          save.reset();
        }}
        hint={t('nameHint')}
        error={save.isError ? save.error.message : undefined}
        className="sm:max-w-sm"
        data-testid="display-name"
      />
      <div className="flex items-center gap-3">
        <Button type="submit" size="sm" pending={save.isPending} data-testid="profile-save">
          {t('saveName')}
        </Button>
        {save.isSuccess && (
          <span role="status" className="text-sm text-success" data-testid="profile-done">
            {tc('saved')}
          </span>
        )}
      </div>
    </form>
  );
}

function PasswordForm() {
  const t = useTranslations('accountSettings');
  const id = useId();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const change = useMutation({
    mutationFn: () => call('POST /account/password', { body: { currentPassword: current, newPassword: next } }),
    onSuccess: () => {
      setCurrent('');
      setNext('');
      setConfirm('');
    },
  });
  const param = paramOf(change.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const differ = next !== confirm;
    setMismatch(differ);
    if (!differ) change.mutate();
  };
  const edit = (set: (v: string) => void) => (e: { target: { value: string } }) => {
    set(e.target.value);
    setMismatch(false);
    if (!change.isPending) change.reset();
  };
  return (
    <form onSubmit={submit} className="flex flex-col gap-3 sm:max-w-sm" data-testid="password-form" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`} className="font-medium">
        {t('password')}
      </h3>
      <PasswordField
        id={`${id}-current`}
        label={t('currentPassword')}
        autoComplete="current-password"
        required
        value={current}
        onChange={edit(setCurrent)}
        error={param === 'currentPassword' ? change.error?.message : undefined}
        data-testid="current-password"
      />
      <PasswordField
        id={`${id}-new`}
        label={t('newPassword')}
        autoComplete="new-password"
        required
        minLength={PASSWORD_MIN}
        value={next}
        onChange={edit(setNext)}
        hint={t('passwordHint', { min: PASSWORD_MIN })}
        error={param === 'newPassword' ? change.error?.message : undefined}
        data-testid="new-password"
      />
      <PasswordField
        id={`${id}-confirm`}
        label={t('newPasswordAgain')}
        autoComplete="new-password"
        required
        value={confirm}
        onChange={edit(setConfirm)}
        error={mismatch ? t('differ') : undefined}
        data-testid="confirm-password"
      />
      {change.isError && !param && <Alert data-testid="password-error">{change.error.message}</Alert>}
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" size="sm" pending={change.isPending} data-testid="password-save">
          {t('changePassword')}
        </Button>
        {change.isSuccess && (
          <span role="status" className="text-sm text-success" data-testid="password-done">
            {t('changed')} {change.data.sessionsEnded > 0 ? t('signedOut', { count: change.data.sessionsEnded }) : t('noOtherSessions')}
          </span>
        )}
      </div>
    </form>
  );
}

export function AccountSettings({ user }: { user: AppUser }) {
  const t = useTranslations('accountSettings');
  return (
    <section aria-labelledby="settings-heading" className="flex flex-col gap-6">
      <h2 id="settings-heading" className="text-lg font-semibold">
        {t('settings')}
      </h2>
      <ProfileForm user={user} />
      <SignInMethods user={user} />
      {!user.wallet && <EmailVerification />}
      {!user.wallet && <PasswordForm />}
      {!user.wallet && <TwoFactorSettings />}
      {!user.wallet && <PasskeySettings />}
    </section>
  );
}

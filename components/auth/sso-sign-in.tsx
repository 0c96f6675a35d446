'use client';
// "Sign in with <provider>" on the sign-in page when single sign-on is configured: a plain link to the server's start
// route (a top-level navigation to the provider and back), and the reason when the provider's answer was refused
// (?sso_error=<reason>, set by the server's callback).
// data-testid: sso-sign-in, sso-error.
import { useTranslations } from 'use-intl';
import { useQuery } from '@tanstack/react-query';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';

/** The server's ?sso_error reasons, each worded in the catalogue's `ssoErrors`. */
const REASONS = ['unavailable', 'state', 'failed', 'no_email', 'unverified', 'domain', 'signup_off', 'link_unverified', 'taken', 'disabled'] as const;
const isReason = (e: string): e is (typeof REASONS)[number] => (REASONS as readonly string[]).includes(e);

export function SsoSignIn({ next, error }: { next: string; error?: string }) {
  const t = useTranslations('authPages');
  const reasons = useTranslations('ssoErrors');
  const info = useQuery({ queryKey: ['auth', 'sso'], queryFn: () => call('GET /auth/sso') });
  const why = error && (isReason(error) ? reasons(error) : t('ssoFailed'));
  if (!info.data?.enabled) return why ? <Alert data-testid="sso-error">{why}</Alert> : null;
  const href = `/api/app/auth/sso/start${next !== '/' ? `?next=${encodeURIComponent(next)}` : ''}`;
  return (
    <div className="flex flex-col gap-2">
      <a
        href={href}
        className="inline-flex h-10 w-full items-center justify-center rounded-md border border-border bg-secondary px-4 text-sm font-medium text-secondary-foreground hover:bg-secondary/80"
        data-testid="sso-sign-in"
      >
        {t('ssoWith', { provider: info.data.name ?? '' })}
      </a>
      {why && <Alert data-testid="sso-error">{why}</Alert>}
    </div>
  );
}

'use client';
// "Sign in with <provider>" on the sign-in page when single sign-on is configured: a plain link to the server's start
// route (a top-level navigation to the provider and back), and the reason when the provider's answer was refused
// (?sso_error=<reason>, set by the server's callback).
// data-testid: sso-sign-in, sso-error.
import { useQuery } from '@tanstack/react-query';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';

const REASONS: Record<string, string> = {
  unavailable: 'The sign-on provider cannot be reached right now. Try again later, or sign in another way.',
  state: 'That sign-on was not started in this browser, or has already been used. Start again.',
  failed: 'The sign-on provider’s answer could not be verified. Start again.',
  no_email: 'The sign-on provider did not share an email address, which Lagoon needs.',
  unverified: 'The sign-on provider has not verified your email address, so it cannot sign you in here.',
  domain: 'Your email address is not in a domain this server accepts for single sign-on.',
  signup_off: 'There is no Lagoon account for your email address, and this server does not create accounts through single sign-on.',
  link_unverified:
    'A Lagoon account with your email exists but its address is not verified. Sign in with your password, then verify your email or link single sign-on in Settings.',
  taken: 'This sign-on identity is already linked to another Lagoon account.',
  disabled: 'This account is disabled. Ask the operator.',
};

export function SsoSignIn({ next, error }: { next: string; error?: string }) {
  const info = useQuery({ queryKey: ['auth', 'sso'], queryFn: () => call('GET /auth/sso') });
  if (!info.data?.enabled) return error ? <Alert data-testid="sso-error">{REASONS[error] ?? 'Single sign-on failed.'}</Alert> : null;
  const href = `/api/app/auth/sso/start${next !== '/' ? `?next=${encodeURIComponent(next)}` : ''}`;
  return (
    <div className="flex flex-col gap-2">
      <a
        href={href}
        className="inline-flex h-10 w-full items-center justify-center rounded-md border border-border bg-secondary px-4 text-sm font-medium text-secondary-foreground hover:bg-secondary/80"
        data-testid="sso-sign-in"
      >
        Sign in with {info.data.name}
      </a>
      {error && <Alert data-testid="sso-error">{REASONS[error] ?? 'Single sign-on failed.'}</Alert>}
    </div>
  );
}

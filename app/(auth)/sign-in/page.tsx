import { titleMetadata } from '@/components/i18n/server.ts';
import { AuthForm } from '@/components/auth/auth-form.tsx';
import { safeNext } from '@/components/session/safe-next.ts';

export const generateMetadata = titleMetadata('signIn');

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { next, sso_error } = await searchParams;
  return <AuthForm mode="sign-in" next={safeNext(typeof next === 'string' ? next : null)} ssoError={typeof sso_error === 'string' ? sso_error : undefined} />;
}

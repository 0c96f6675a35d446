import { titleMetadata } from '@/components/i18n/server.ts';
import { AuthForm } from '@/components/auth/auth-form.tsx';
import { safeNext } from '@/components/session/safe-next.ts';

export const generateMetadata = titleMetadata('signUp');

export default async function SignUpPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { next, setup } = await searchParams;
  return <AuthForm mode="sign-up" next={safeNext(typeof next === 'string' ? next : null)} setupToken={typeof setup === 'string' ? setup : undefined} />;
}

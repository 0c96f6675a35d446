import type { Metadata } from 'next';
import { AuthForm } from '@/components/auth/auth-form.tsx';
import { safeNext } from '@/components/session/safe-next.ts';

export const metadata: Metadata = { title: 'Sign in' };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { next } = await searchParams;
  return <AuthForm mode="sign-in" next={safeNext(typeof next === 'string' ? next : null)} />;
}

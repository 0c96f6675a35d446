'use client';
// The auth pages are for signed-out visitors: someone with a live session goes straight on to the app.
import { useRouter } from 'next/navigation';
import { useEffect } from 'react';
import { useMe } from '@/components/session/use-me.ts';

export function useRedirectIfSignedIn(next: string): void {
  const me = useMe();
  const router = useRouter();
  const signedIn = !!me.data && !me.error;
  useEffect(() => {
    if (signedIn) router.replace(next);
  }, [signedIn, next, router]);
}

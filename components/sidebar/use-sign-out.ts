'use client';
// Ends the session on the server, forgets everything cached for this user and goes to the sign-in page. A session
// that had already ended (401) counts as signed out.
import { useTranslations } from 'use-intl';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { AppApiError, call, setCsrfToken } from '@/components/api/client.ts';
import { useToast } from '@/components/ui/toast.tsx';

export function useSignOut() {
  const qc = useQueryClient();
  const router = useRouter();
  const toast = useToast();
  const t = useTranslations('sidebar');
  return useMutation({
    mutationFn: async () => {
      try {
        await call('POST /auth/sign-out');
      } catch (e) {
        if (!(e instanceof AppApiError && e.status === 401)) throw e;
      }
    },
    onSuccess: () => {
      setCsrfToken(undefined);
      router.replace('/sign-in');
      qc.removeQueries();
    },
    onError: (err) => toast({ tone: 'error', message: t('signOutFailed', { error: err.message }) }),
  });
}

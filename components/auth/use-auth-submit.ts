'use client';
// Signs in or up; on success the new session's user and CSRF token replace whatever the cache held (a previous
// user's chats must never show) and the browser goes on to `next`.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { call, qk, setCsrfToken } from '@/components/api/client.ts';
import type { AuthInput } from '@/components/auth/auth-errors.ts';

export function useAuthSubmit(mode: 'sign-in' | 'sign-up', next: string) {
  const qc = useQueryClient();
  const router = useRouter();
  return useMutation({
    mutationFn: (input: AuthInput) => (mode === 'sign-in' ? call('POST /auth/sign-in', { body: input }) : call('POST /auth/sign-up', { body: input })),
    onSuccess: (me) => {
      qc.removeQueries();
      setCsrfToken(me.csrfToken);
      qc.setQueryData(qk.me, me);
      router.replace(next);
    },
  });
}

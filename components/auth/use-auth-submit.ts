'use client';
// Signs in or up; on success the new session's user and CSRF token replace whatever the cache held (a previous
// user's chats must never show) and the browser goes on to `next`. A sign-in that owes a second factor calls
// `onSecondFactor` with its challenge instead (no session yet); useSessionStarted finishes either way.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { call, qk, setCsrfToken } from '@/components/api/client.ts';
import type { AuthInput } from '@/components/auth/auth-errors.ts';
import type { MeResponse } from '@/lib/wire.ts';

export function useSessionStarted(next: string) {
  const qc = useQueryClient();
  const router = useRouter();
  return (me: MeResponse) => {
    qc.removeQueries();
    setCsrfToken(me.csrfToken);
    qc.setQueryData(qk.me, me);
    router.replace(next);
  };
}

export function useAuthSubmit(mode: 'sign-in' | 'sign-up', next: string, onSecondFactor: (challenge: string) => void) {
  const started = useSessionStarted(next);
  return useMutation({
    mutationFn: (input: AuthInput) => (mode === 'sign-in' ? call('POST /auth/sign-in', { body: input }) : call('POST /auth/sign-up', { body: input })),
    onSuccess: (reply) => {
      if ('secondFactor' in reply) onSecondFactor(reply.challenge);
      else started(reply);
    },
  });
}

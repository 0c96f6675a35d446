'use client';
// The signed-in user, from GET /auth/me. Reading it also hands the session's CSRF token to the API client, which
// sends it back on every state-changing request.
import { useQuery } from '@tanstack/react-query';
import { AppApiError, call, qk, setCsrfToken } from '@/components/api/client.ts';
import type { MeResponse } from '@/lib/wire.ts';

export async function fetchMe(): Promise<MeResponse> {
  const me = await call('GET /auth/me');
  setCsrfToken(me.csrfToken);
  return me;
}

export function useMe() {
  return useQuery({
    queryKey: qk.me,
    queryFn: fetchMe,
    staleTime: 5 * 60_000,
    retry: (count, err) => !(err instanceof AppApiError && err.status === 401) && count < 2,
  });
}

export const isSignedOut = (err: unknown): boolean => err instanceof AppApiError && err.status === 401;

// The video page's server state (TanStack Query): the models, the quote of the form's current shape, and the jobs,
// polled every second while any is queued or running (and not at all once none is).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call, qk } from '@/components/api/client.ts';
import type { VideoQueueRequest } from '@/lib/video/wire.ts';
import { isActive } from '@/components/video/progress.ts';

export const videoKeys = {
  all: ['video'] as const,
  models: ['video', 'models'] as const,
  quote: (q: QuoteShape) => ['video', 'quote', q] as const,
  jobs: ['video', 'jobs'] as const,
};

export const POLL_MS = 1_000;

export interface QuoteShape {
  model: string;
  duration: number;
  aspect_ratio: string;
  resolution: string;
  audio: boolean;
}

export function useVideoModels() {
  return useQuery({
    queryKey: videoKeys.models,
    queryFn: ({ signal }) => call('GET /video/models', { signal }),
    staleTime: 5 * 60_000,
  });
}

export function useVideoQuote(shape: QuoteShape | null) {
  return useQuery({
    queryKey: videoKeys.quote(shape ?? { model: '', duration: 0, aspect_ratio: '', resolution: '', audio: false }),
    queryFn: ({ signal }) => {
      const { model, duration, aspect_ratio, resolution, audio } = shape!;
      return call('GET /video/quote', { query: { model, duration, aspect_ratio, resolution, audio }, signal });
    },
    enabled: shape !== null,
    // Changing a field keeps the last price on screen (marked as updating) until the new one arrives.
    placeholderData: keepPreviousData,
    staleTime: 60_000,
    retry: false,
  });
}

export function useVideoJobs() {
  return useQuery({
    queryKey: videoKeys.jobs,
    queryFn: ({ signal }) => call('GET /video/jobs', { signal }),
    refetchInterval: (query) => (query.state.data?.jobs.some(isActive) ? POLL_MS : false),
    // Polling goes on in a background tab too, so the balance and the list are current when the user comes back.
    refetchIntervalInBackground: true,
    refetchOnWindowFocus: true,
  });
}

function useRefresh() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: videoKeys.jobs });
    void qc.invalidateQueries({ queryKey: qk.account });
  };
}

export function useQueueVideo() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: (body: VideoQueueRequest) => call('POST /video/jobs', { body }),
    onSuccess: refresh,
  });
}

export function useDeleteVideo() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: (id: string) => call('DELETE /video/jobs/:id', { params: { id } }),
    onSettled: refresh,
  });
}

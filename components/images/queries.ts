// The image mode's server state (TanStack Query): the models and styles, a chat's images (polled while a message of it
// is still being made, so variants appear one by one), the gallery (pages, newest first), and deleting an image.
import { type QueryClient, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call, qk } from '@/components/api/client.ts';
import type { AppImage, ImagesPage } from '@/lib/images/wire.ts';

export const imageKeys = {
  all: ['images'] as const,
  models: ['images', 'models'] as const,
  gallery: ['images', 'gallery'] as const,
  chat: (conversationId: string) => ['images', 'chat', conversationId] as const,
};

/** How often a chat's images are re-read while one of its messages is still being made. */
export const POLL_MS = 700;

export function useImageModels(enabled = true) {
  return useQuery({
    queryKey: imageKeys.models,
    queryFn: ({ signal }) => call('GET /images/models', { signal }),
    staleTime: 5 * 60_000,
    enabled,
  });
}

/** The images of one chat (oldest first), re-read every POLL_MS while `live`. */
export function useChatImages(conversationId: string | null, live: boolean) {
  return useQuery({
    queryKey: imageKeys.chat(conversationId ?? ''),
    queryFn: ({ signal }) => call('GET /images', { query: { conversationId, limit: 100 }, signal }),
    enabled: conversationId !== null,
    refetchInterval: live ? POLL_MS : false,
    staleTime: 30_000,
  });
}

export function useGallery() {
  return useInfiniteQuery({
    queryKey: imageKeys.gallery,
    queryFn: ({ signal, pageParam }) => call('GET /images', { query: { limit: 24, cursor: pageParam }, signal }),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

/** New images: into their chat's list at once (no wait for the next poll), and the gallery and balance re-read. */
export function addImages(qc: QueryClient, images: AppImage[]): void {
  for (const image of images) {
    if (!image.conversationId) continue;
    qc.setQueryData<ImagesPage>(imageKeys.chat(image.conversationId), (old) =>
      old ? { ...old, images: old.images.some((i) => i.id === image.id) ? old.images : [...old.images, image] } : old,
    );
  }
  void qc.invalidateQueries({ queryKey: imageKeys.gallery });
  void qc.invalidateQueries({ queryKey: qk.account });
}

export function useDeleteImage() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call('DELETE /images/:id', { params: { id } }),
    onSettled: () => void qc.invalidateQueries({ queryKey: imageKeys.all }),
  });
}

// The knowledge app API from the browser: the collections list and one collection with its files, as TanStack
// queries that poll while a file is being indexed (its progress bar moves), and the mutations that change them.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '@/components/api/client.ts';

export const knowledgeKeys = {
  all: ['knowledge'] as const,
  list: ['knowledge', 'list'] as const,
  one: (id: string) => ['knowledge', 'one', id] as const,
};

const POLL_MS = 1000;

export function useCollections() {
  return useQuery({
    queryKey: knowledgeKeys.list,
    queryFn: ({ signal }) => call('GET /knowledge', { signal }),
    refetchInterval: (q) => (q.state.data?.collections.some((c) => c.pending > 0) ? POLL_MS : false),
  });
}

export function useCollection(id: string | null) {
  return useQuery({
    queryKey: knowledgeKeys.one(id ?? ''),
    queryFn: ({ signal }) => call('GET /knowledge/:id', { params: { id: id ?? '' }, signal }),
    enabled: id !== null,
    refetchInterval: (q) => (q.state.data?.files.some((f) => f.status === 'queued' || f.status === 'indexing') ? POLL_MS : false),
  });
}

export function useKnowledgeMutations() {
  const qc = useQueryClient();
  const refresh = () => qc.invalidateQueries({ queryKey: knowledgeKeys.all });
  return {
    create: useMutation({ mutationFn: (name: string) => call('POST /knowledge', { body: { name } }), onSettled: refresh }),
    remove: useMutation({ mutationFn: (id: string) => call('DELETE /knowledge/:id', { params: { id } }), onSettled: refresh }),
    upload: useMutation({
      mutationFn: (v: { id: string; name: string; type: string; dataUrl: string }) =>
        call('POST /knowledge/:id/files', { params: { id: v.id }, body: { name: v.name, type: v.type, dataUrl: v.dataUrl } }),
      onSettled: refresh,
    }),
    removeFile: useMutation({
      mutationFn: (v: { id: string; fileId: string }) => call('DELETE /knowledge/:id/files/:fileId', { params: v }),
      onSettled: refresh,
    }),
    search: useMutation({
      mutationFn: (v: { id: string; query: string }) => call('POST /knowledge/search', { body: { collections: [v.id], query: v.query } }),
    }),
  };
}

/** The file as a data: URL; `unreadable` is the (translated) error when the browser cannot read it. */
export function readAsDataUrl(file: File, unreadable: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error(unreadable));
    reader.readAsDataURL(file);
  });
}

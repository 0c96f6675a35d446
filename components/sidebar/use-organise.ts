'use client';
// Folders and filing: the user's folders (create, rename, delete: its chats move out), and filing a chat into a
// folder, pinning and archiving it. Filing shows at once in the chat's own cache; every list is then refetched.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call, qk } from '@/components/api/client.ts';
import { useToast } from '@/components/ui/toast.tsx';
import { patchConversationInCache } from '@/components/sidebar/conversation-cache.ts';

export const folderKey = ['folders'] as const;

export function useFolders() {
  return useQuery({ queryKey: folderKey, queryFn: ({ signal }) => call('GET /folders', { signal }), staleTime: 60_000 });
}

function useRefreshLists() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: qk.conversations });
    void qc.invalidateQueries({ queryKey: ['search'] });
  };
}

export function useCreateFolder() {
  const qc = useQueryClient();
  const toast = useToast();
  return useMutation({
    mutationFn: (name: string) => call('POST /folders', { body: { name } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: folderKey }),
    onError: (e) => toast({ tone: 'error', message: `Could not make the folder: ${e.message}` }),
  });
}

export function useRenameFolder() {
  const qc = useQueryClient();
  const toast = useToast();
  return useMutation({
    mutationFn: ({ id, name }: { id: string; name: string }) => call('PATCH /folders/:id', { params: { id }, body: { name } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: folderKey }),
    onError: (e) => toast({ tone: 'error', message: `Could not rename the folder: ${e.message}` }),
  });
}

export function useDeleteFolder() {
  const qc = useQueryClient();
  const refresh = useRefreshLists();
  const toast = useToast();
  return useMutation({
    mutationFn: (id: string) => call('DELETE /folders/:id', { params: { id } }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: folderKey });
      refresh();
      toast({ tone: 'success', message: 'Folder deleted; its chats are back in the list' });
    },
    onError: (e) => toast({ tone: 'error', message: `Could not delete the folder: ${e.message}` }),
  });
}

export type OrganiseChange = { folderId: string | null } | { pinned: boolean } | { archived: boolean };

const DONE = (c: OrganiseChange, title: string): string =>
  'folderId' in c
    ? c.folderId
      ? `Moved “${title}”`
      : `“${title}” is out of its folder`
    : 'pinned' in c
      ? c.pinned
        ? `Pinned “${title}”`
        : `Unpinned “${title}”`
      : c.archived
        ? `Archived “${title}”: find it under Archived or by search`
        : `Restored “${title}”`;

export function useOrganise() {
  const qc = useQueryClient();
  const refresh = useRefreshLists();
  const toast = useToast();
  return useMutation({
    mutationFn: ({ id, change }: { id: string; change: OrganiseChange }) => call('PATCH /conversations/:id', { params: { id }, body: change }),
    onSuccess: (c, { change }) => {
      patchConversationInCache(qc, c.id, { folderId: c.folderId, pinned: c.pinned, archived: c.archived });
      refresh();
      toast({ tone: 'success', message: DONE(change, c.title) });
    },
    onError: (e) => toast({ tone: 'error', message: `Could not change the chat: ${e.message}` }),
  });
}

/** What a dragged chat carries (its id), so only chats can be dropped on a folder. */
export const CHAT_DRAG_TYPE = 'application/x-lagoon-chat';

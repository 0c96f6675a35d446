'use client';
// Folders and filing: the user's folders (create, rename, delete: its chats move out), and filing a chat into a
// folder, pinning and archiving it. Filing shows at once in the chat's own cache; every list is then refetched.
import { useTranslations } from 'use-intl';
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
  const t = useTranslations('sidebar');
  return useMutation({
    mutationFn: (name: string) => call('POST /folders', { body: { name } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: folderKey }),
    onError: (e) => toast({ tone: 'error', message: t('folderCreateFailed', { error: e.message }) }),
  });
}

export function useRenameFolder() {
  const qc = useQueryClient();
  const toast = useToast();
  const t = useTranslations('sidebar');
  return useMutation({
    mutationFn: ({ id, name }: { id: string; name: string }) => call('PATCH /folders/:id', { params: { id }, body: { name } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: folderKey }),
    onError: (e) => toast({ tone: 'error', message: t('folderRenameFailed', { error: e.message }) }),
  });
}

export function useDeleteFolder() {
  const qc = useQueryClient();
  const refresh = useRefreshLists();
  const toast = useToast();
  const t = useTranslations('sidebar');
  return useMutation({
    mutationFn: (id: string) => call('DELETE /folders/:id', { params: { id } }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: folderKey });
      refresh();
      toast({ tone: 'success', message: t('folderDeleted') });
    },
    onError: (e) => toast({ tone: 'error', message: t('folderDeleteFailed', { error: e.message }) }),
  });
}

export type OrganiseChange = { folderId: string | null } | { pinned: boolean } | { archived: boolean };

const DONE = (c: OrganiseChange) =>
  'folderId' in c
    ? c.folderId
      ? 'moved'
      : 'outOfFolder'
    : 'pinned' in c
      ? c.pinned
        ? 'pinnedDone'
        : 'unpinnedDone'
      : c.archived
        ? 'archivedDone'
        : 'restoredDone';

export function useOrganise() {
  const qc = useQueryClient();
  const refresh = useRefreshLists();
  const toast = useToast();
  const t = useTranslations('sidebar');
  return useMutation({
    mutationFn: ({ id, change }: { id: string; change: OrganiseChange }) => call('PATCH /conversations/:id', { params: { id }, body: change }),
    onSuccess: (c, { change }) => {
      patchConversationInCache(qc, c.id, { folderId: c.folderId, pinned: c.pinned, archived: c.archived });
      refresh();
      toast({ tone: 'success', message: t(DONE(change), { title: c.title }) });
    },
    onError: (e) => toast({ tone: 'error', message: t('changeFailed', { error: e.message }) }),
  });
}

/** What a dragged chat carries (its id), so only chats can be dropped on a folder. */
export const CHAT_DRAG_TYPE = 'application/x-lagoon-chat';

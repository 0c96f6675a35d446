'use client';
// Rename and delete from the sidebar. Rename shows the new title at once and puts the old one back if the server
// refuses; delete leaves the open chat first (to a new chat) so its page never asks for a conversation that is gone.
import { useTranslations } from 'use-intl';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { AppApiError, call, qk } from '@/components/api/client.ts';
import { useToast } from '@/components/ui/toast.tsx';
import { patchConversationInCache, removeConversationFromCache } from '@/components/sidebar/conversation-cache.ts';

export function useRenameConversation() {
  const qc = useQueryClient();
  const toast = useToast();
  const t = useTranslations('sidebar');
  return useMutation({
    mutationFn: ({ id, title }: { id: string; title: string; previous: string }) => call('PATCH /conversations/:id', { params: { id }, body: { title } }),
    onMutate: ({ id, title }) => patchConversationInCache(qc, id, { title }),
    onSuccess: (conv) => patchConversationInCache(qc, conv.id, { title: conv.title }),
    onError: (err, { id, previous }) => {
      patchConversationInCache(qc, id, { title: previous });
      toast({ tone: 'error', message: t('renameFailed', { error: err.message }) });
    },
  });
}

export function useDeleteConversation() {
  const qc = useQueryClient();
  const toast = useToast();
  const t = useTranslations('sidebar');
  const router = useRouter();
  return useMutation({
    mutationFn: async ({ id }: { id: string; isOpen: boolean }) => {
      try {
        await call('DELETE /conversations/:id', { params: { id } });
      } catch (e) {
        // Already gone (deleted in another tab): the outcome the user asked for.
        if (!(e instanceof AppApiError && e.status === 404)) throw e;
      }
    },
    onSuccess: (_v, { id, isOpen }) => {
      if (isOpen) router.replace('/');
      removeConversationFromCache(qc, id);
      void qc.invalidateQueries({ queryKey: qk.conversations });
      toast({ tone: 'success', message: t('deleted') });
    },
    onError: (err) => toast({ tone: 'error', message: t('deleteFailed', { error: err.message }) }),
  });
}

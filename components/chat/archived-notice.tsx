'use client';
// Above the composer of an archived chat: it is out of the chat list (still found by search); Restore puts it back.
// data-testid: archived-notice, archived-restore.
import { useTranslations } from 'use-intl';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call, qk } from '@/components/api/client.ts';
import { Button } from '@/components/ui/button.tsx';
import type { AppConversation } from '@/lib/wire.ts';

export function ArchivedNotice({ id }: { id: string }) {
  const t = useTranslations('chat.archived');
  const qc = useQueryClient();
  const restore = useMutation({
    mutationFn: () => call('PATCH /conversations/:id', { params: { id }, body: { archived: false } }),
    onSuccess: (c) => {
      qc.setQueryData<AppConversation>(qk.conversation(id), (old) => old && { ...old, archived: c.archived });
      void qc.invalidateQueries({ queryKey: qk.conversations });
    },
  });
  return (
    <div
      role="status"
      data-testid="archived-notice"
      className="mx-3 mb-2 flex flex-wrap items-center justify-center gap-2 rounded-lg bg-muted px-3 py-2 text-sm sm:mx-6"
    >
      <span>{t('notice')}</span>
      <Button size="sm" variant="secondary" pending={restore.isPending} onClick={() => restore.mutate()} data-testid="archived-restore">
        {t('restore')}
      </Button>
      {restore.error && <span className="text-error">{restore.error.message}</span>}
    </div>
  );
}

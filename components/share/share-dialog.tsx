'use client';
// The chat header's Share button: a dialog that makes a read-only link of the branch on screen (a snapshot: later
// turns are not in it), lists this chat's links with copy and revoke, and says what a link shows.
// data-testid: share-button, share-dialog, share-create, share-link, share-url, share-copy, share-revoke.
import { useTranslations } from 'use-intl';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Dialog } from '@/components/ui/dialog.tsx';
import type { AppShare } from '@/lib/wire.ts';
import { useFormat } from '@/components/i18n/format.ts';

export const shareKeys = { all: ['shares'] as const, chat: (id: string) => ['shares', id] as const };

export const shareUrl = (s: AppShare) => `${window.location.origin}${s.path}`;

/** One link: its address (selectable), copy and revoke. */
export function ShareRow({ share, onRevoked }: { share: AppShare; onRevoked: () => void }) {
  const t = useTranslations('share');
  const fmt = useFormat();
  const [copied, setCopied] = useState(false);
  const revoke = useMutation({ mutationFn: () => call('DELETE /shares/:token', { params: { token: share.token } }), onSuccess: onRevoked });
  return (
    <li data-testid="share-link" data-token={share.token} className="flex flex-col gap-1 rounded-lg border border-border p-2">
      <span className="text-xs text-muted-foreground">
        {share.title} · {t('messages', { count: share.messageCount })} · {fmt.dateTime(share.createdAt)}
      </span>
      <div className="flex items-center gap-2">
        <input
          readOnly
          value={shareUrl(share)}
          aria-label={t('link')}
          data-testid="share-url"
          onFocus={(e) => e.currentTarget.select()}
          className="min-w-0 flex-1 rounded-md border border-border bg-background px-2 py-1 text-xs"
        />
        <Button
          size="sm"
          variant="secondary"
          data-testid="share-copy"
          onClick={async () => {
            await navigator.clipboard.writeText(shareUrl(share)).then(
              () => setCopied(true),
              () => {},
            );
          }}
        >
          {copied ? t('copied') : t('copy')}
        </Button>
        <Button size="sm" variant="danger" data-testid="share-revoke" pending={revoke.isPending} onClick={() => revoke.mutate()}>
          {t('revoke')}
        </Button>
      </div>
      {revoke.error && <Alert tone="error">{(revoke.error as Error).message}</Alert>}
    </li>
  );
}

export function ShareButton({ conversationId, leafId }: { conversationId: string | null; leafId: string | null }) {
  const t = useTranslations('share');
  const [open, setOpen] = useState(false);
  const qc = useQueryClient();
  const shares = useQuery({
    queryKey: shareKeys.chat(conversationId ?? ''),
    queryFn: () => call('GET /shares', { query: { conversation: conversationId } }),
    enabled: open && !!conversationId,
  });
  const refresh = () => void qc.invalidateQueries({ queryKey: shareKeys.all });
  const create = useMutation({
    mutationFn: () => call('POST /conversations/:id/shares', { params: { id: conversationId ?? '' }, body: { leafId: leafId ?? '' } }),
    onSuccess: refresh,
  });
  if (!conversationId || !leafId) return null;
  return (
    <>
      <Button size="sm" variant="ghost" data-testid="share-button" onClick={() => setOpen(true)}>
        {t('share')}
      </Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title={t('title')}
        testId="share-dialog"
        description={t('description')}
        footer={
          <Button variant="secondary" onClick={() => setOpen(false)}>
            {t('close')}
          </Button>
        }
      >
        <Button data-testid="share-create" pending={create.isPending} onClick={() => create.mutate()}>
          {t('create')}
        </Button>
        {create.error && <Alert tone="error">{(create.error as Error).message}</Alert>}
        {shares.data && shares.data.items.length > 0 && (
          <ul className="flex flex-col gap-2" aria-label={t('links')}>
            {shares.data.items.map((s) => (
              <ShareRow key={s.token} share={s} onRevoked={refresh} />
            ))}
          </ul>
        )}
      </Dialog>
    </>
  );
}

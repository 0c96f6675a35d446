'use client';
// A shared chat, read-only: the snapshot's branch with answers in the chat's own markdown renderer (sanitised, no raw
// HTML), images from the share's own route, sources as plain links. A signed-in reader can continue it as a new chat
// of their own. data-testid: shared-chat, shared-message (data-role), share-continue, share-missing.
import { useTranslations } from 'use-intl';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import Link from 'next/link';
import { useEffect } from 'react';
import { AppApiError, call } from '@/components/api/client.ts';
import { Markdown } from '@/components/chat/markdown.tsx';
import { useMe } from '@/components/session/use-me.ts';
import { signInUrl } from '@/components/session/safe-next.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button, buttonClasses } from '@/components/ui/button.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import type { AppSharedMessage } from '@/lib/wire.ts';
import { SharedFrame } from './shared-frame.tsx';
import { useFormat } from '@/components/i18n/format.ts';

export function ShareMissing() {
  const t = useTranslations('sharedChat');
  return (
    <div className="grid flex-1 place-items-center p-6" data-testid="share-missing">
      <div className="max-w-md text-center">
        <h1 className="text-2xl font-semibold">{t('missingTitle')}</h1>
        <p className="mt-2 text-sm text-muted-foreground">{t('missingBody')}</p>
        <Link href="/" className={buttonClasses('primary', 'sm', 'mt-4')}>
          {t('goHome')}
        </Link>
      </div>
    </div>
  );
}

function Message({ m }: { m: AppSharedMessage }) {
  const t = useTranslations('sharedChat');
  const user = m.role === 'user';
  return (
    <article
      data-testid="shared-message"
      data-role={m.role}
      aria-label={user ? t('question') : t('answer')}
      className={user ? 'flex flex-col items-end gap-2' : 'flex flex-col gap-2'}
    >
      {m.attachments.length > 0 && (
        <ul className="flex flex-wrap gap-2" aria-label={t('files')}>
          {m.attachments.map((a, i) => (
            <li key={i}>
              {a.url ? (
                <img src={a.url} alt={a.name} className="max-h-64 max-w-full rounded-lg border border-border" />
              ) : (
                <span className="rounded-md border border-border px-2 py-1 text-xs">{a.name}</span>
              )}
            </li>
          ))}
        </ul>
      )}
      {user ? (
        <p className="max-w-[85%] whitespace-pre-wrap break-words rounded-2xl bg-muted px-4 py-2 text-[15px]">{m.content}</p>
      ) : (
        <div className="min-w-0">
          {m.reasoning?.trim() && (
            <details className="mb-2 text-sm text-muted-foreground">
              <summary>{t('reasoning')}</summary>
              <p className="whitespace-pre-wrap">{m.reasoning}</p>
            </details>
          )}
          {m.tools && m.tools.length > 0 && (
            <p className="mb-2 text-xs text-muted-foreground">{t('used', { tools: m.tools.map((tool) => tool.name).join(', ') })}</p>
          )}
          <Markdown text={m.content} citations={m.citations} live={false} />
          {m.status !== 'complete' && <p className="text-xs text-muted-foreground">{m.status === 'error' ? t('failed') : t('stopped')}</p>}
          {m.citations.length > 0 && (
            <ol className="mt-2 list-decimal pl-5 text-sm" aria-label={t('sources')}>
              {m.citations.map((c, i) => (
                <li key={i}>
                  {/^https?:\/\//i.test(c.url) ? (
                    <a href={c.url} rel="noopener noreferrer nofollow ugc" target="_blank" className="text-primary underline-offset-4 hover:underline">
                      {c.title || c.url}
                    </a>
                  ) : (
                    c.title || c.url
                  )}
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
    </article>
  );
}

export function SharedChat({ token }: { token: string }) {
  const t = useTranslations('sharedChat');
  const router = useRouter();
  const fmt = useFormat();
  const me = useMe();
  const share = useQuery({
    queryKey: ['share', token],
    queryFn: () => call('GET /shares/:token', { params: { token } }),
    retry: (n, e) => !(e instanceof AppApiError && e.status === 404) && n < 2,
  });
  const go = useMutation({
    mutationFn: () => call('POST /shares/:token/continue', { params: { token } }),
    onSuccess: (c) => router.push(`/c/${c.id}`),
  });
  useEffect(() => {
    if (share.data) document.title = t('documentTitle', { title: share.data.title });
  }, [share.data, t]);
  const path = `/s/${token}`;
  const gone = share.error instanceof AppApiError && share.error.status === 404;
  return (
    <SharedFrame path={path}>
      {gone ? (
        <ShareMissing />
      ) : share.error ? (
        <div className="p-6">
          <Alert tone="error">{(share.error as Error).message}</Alert>
        </div>
      ) : !share.data ? (
        <div className="grid flex-1 place-items-center">
          <Spinner label={t('loading')} />
        </div>
      ) : (
        <div className="min-h-0 flex-1 overflow-y-auto" data-testid="shared-chat">
          <div className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-6">
            <header className="flex flex-col gap-2 border-b border-border pb-4">
              <h1 className="text-xl font-semibold">{share.data.title}</h1>
              <p className="text-sm text-muted-foreground">
                {t('asOf', { when: fmt.dateTime(share.data.sharedAt) })}
                {share.data.modelId ? ` · ${share.data.modelId}` : ''}.
              </p>
              <div>
                {me.data ? (
                  <Button size="sm" data-testid="share-continue" pending={go.isPending} onClick={() => go.mutate()}>
                    {t('continue')}
                  </Button>
                ) : me.isError ? (
                  <Link href={signInUrl(path)} className={buttonClasses('secondary', 'sm')}>
                    {t('signInToContinue')}
                  </Link>
                ) : null}
              </div>
              {go.error && <Alert tone="error">{(go.error as Error).message}</Alert>}
            </header>
            {share.data.messages.map((m, i) => (
              <Message key={i} m={m} />
            ))}
          </div>
        </div>
      )}
    </SharedFrame>
  );
}

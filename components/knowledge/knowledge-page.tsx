'use client';
// The knowledge page (/knowledge): the user's collections, one collection's files with their indexing progress, an
// upload of many files at once, and a search to see what a chat would be given. A chat uses a collection once it is
// attached in the chat's settings (chat-settings.tsx).
// data-testid: knowledge-page, new-collection-name, create-collection, collection-item (data-id), collection-detail,
// knowledge-upload, knowledge-file (data-status), file-progress, delete-file, delete-collection, knowledge-search,
// knowledge-search-go, knowledge-hit.
import { useState } from 'react';
import { useTranslations } from 'use-intl';
import { AppApiError } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { cn } from '@/components/ui/cn.ts';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { InputField } from '@/components/ui/fields.tsx';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { TrashIcon } from '@/components/ui/icons.tsx';
import { QueryContent } from '@/components/ui/query-state.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import type { AppKnowledgeFile, AppKnowledgeSearch } from '@/lib/wire.ts';
import { readAsDataUrl, useCollection, useCollections, useKnowledgeMutations } from './queries.ts';

const size = (n: number) => (n < 1024 * 1024 ? `${Math.max(1, Math.round(n / 1024))} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);
const messageOf = (e: unknown, fallback: string) => (e instanceof AppApiError || e instanceof Error ? e.message : fallback);

export function KnowledgePage() {
  const t = useTranslations('knowledge');
  const tc = useTranslations('common');
  const list = useCollections();
  const m = useKnowledgeMutations();
  const [name, setName] = useState('');
  const [picked, setPicked] = useState<string | null>(null);
  const toast = useToast();

  return (
    <div className="flex-1 overflow-y-auto" data-testid="knowledge-page">
      <div className="mx-auto flex max-w-5xl flex-col gap-6 px-4 py-6 sm:px-6 sm:py-8">
        <header className="flex flex-col gap-2">
          <h1 className="text-2xl font-semibold tracking-tight">{t('title')}</h1>
          <p className="text-sm text-muted-foreground">{t('intro')}</p>
        </header>
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            if (!name.trim()) return;
            m.create.mutate(name.trim(), {
              onSuccess: (c) => {
                setName('');
                setPicked(c.id);
              },
              onError: (err) => toast({ tone: 'error', message: messageOf(err, tc('somethingWrong')) }),
            });
          }}
        >
          <InputField
            id="new-collection-name"
            label={t('newCollection')}
            placeholder={t('newCollectionPlaceholder')}
            value={name}
            maxLength={200}
            onChange={(e) => setName(e.target.value)}
            className="w-72"
            data-testid="new-collection-name"
          />
          <Button type="submit" pending={m.create.isPending} disabled={!name.trim()} data-testid="create-collection">
            {t('create')}
          </Button>
        </form>
        <QueryContent query={list} loading={t('loading')} failed={t('failed')}>
          {(data) => (
            <div className="grid gap-6 md:grid-cols-[16rem_1fr]">
              <nav aria-label={t('collections')} className="flex flex-col gap-1">
                {data.collections.length === 0 && <p className="text-sm text-muted-foreground">{t('noCollections')}</p>}
                {data.collections.map((c) => (
                  <button
                    key={c.id}
                    type="button"
                    data-testid="collection-item"
                    data-id={c.id}
                    aria-current={(picked ?? data.collections[0]?.id) === c.id ? 'true' : undefined}
                    onClick={() => setPicked(c.id)}
                    className={cn(
                      'flex flex-col rounded-lg px-3 py-2 text-left hover:bg-accent',
                      (picked ?? data.collections[0]?.id) === c.id && 'bg-accent font-medium',
                    )}
                  >
                    <span className="truncate">{c.name}</span>
                    <span className="text-xs text-muted-foreground">
                      {t('collectionStats', { files: c.files, chunks: c.chunks })}
                      {c.pending ? t('collectionIndexing', { pending: c.pending }) : ''}
                    </span>
                  </button>
                ))}
              </nav>
              {data.collections.length > 0 && (
                <CollectionDetail
                  id={picked && data.collections.some((c) => c.id === picked) ? picked : data.collections[0].id}
                  accept={data.accept}
                  maxFileBytes={data.maxFileBytes}
                  embeddingModel={data.embeddingModel}
                  onDeleted={() => setPicked(null)}
                />
              )}
            </div>
          )}
        </QueryContent>
      </div>
    </div>
  );
}

function CollectionDetail({
  id,
  accept,
  maxFileBytes,
  embeddingModel,
  onDeleted,
}: {
  id: string;
  accept: string;
  maxFileBytes: number;
  embeddingModel: string | null;
  onDeleted: () => void;
}) {
  const t = useTranslations('knowledge');
  const tc = useTranslations('common');
  const detail = useCollection(id);
  const m = useKnowledgeMutations();
  const toast = useToast();
  const [uploading, setUploading] = useState(0);
  const [confirm, setConfirm] = useState(false);

  async function upload(files: FileList | null) {
    const all = [...(files ?? [])];
    setUploading((n) => n + all.length);
    // One request a file, a few at once: a large batch neither waits on its slowest file nor sends one huge body.
    const queue = [...all];
    const worker = async () => {
      for (let f = queue.shift(); f; f = queue.shift()) {
        try {
          if (f.size > maxFileBytes) throw new Error(t('tooLarge', { name: f.name, limit: size(maxFileBytes) }));
          await m.upload.mutateAsync({ id, name: f.name, type: f.type, dataUrl: await readAsDataUrl(f, t('couldNotRead', { name: f.name })) });
        } catch (e) {
          toast({ tone: 'error', message: messageOf(e, tc('somethingWrong')) });
        } finally {
          setUploading((n) => n - 1);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(3, all.length) }, worker));
  }

  return (
    <QueryContent query={detail} loading={t('loadingCollection')} failed={t('failedCollection')}>
      {(data) => (
        <section aria-label={data.collection.name} className="flex min-w-0 flex-col gap-4" data-testid="collection-detail">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h2 className="text-lg font-semibold">{data.collection.name}</h2>
            <div className="flex items-center gap-2">
              <label
                className={cn('inline-flex h-10 cursor-pointer items-center rounded-lg bg-primary px-4 text-sm text-primary-foreground hover:bg-primary-hover')}
              >
                {uploading ? t('uploading', { count: uploading }) : t('addFiles')}
                <input
                  type="file"
                  multiple
                  accept={accept}
                  className="sr-only"
                  data-testid="knowledge-upload"
                  onChange={(e) => {
                    void upload(e.target.files);
                    e.target.value = '';
                  }}
                />
              </label>
              <Button variant="secondary" onClick={() => setConfirm(true)} data-testid="delete-collection">
                {tc('delete')}
              </Button>
            </div>
          </div>
          <p className="text-xs text-muted-foreground">
            {t('formats', { limit: size(maxFileBytes) })} {embeddingModel ? t('byMeaning', { model: embeddingModel }) : t('byWords')}
          </p>
          {data.files.length === 0 ? (
            <p className="text-sm text-muted-foreground">{t('noFiles')}</p>
          ) : (
            <ul className="flex flex-col divide-y divide-border rounded-lg border border-border">
              {data.files.map((f) => (
                <FileRow
                  key={f.id}
                  file={f}
                  onDelete={() =>
                    m.removeFile.mutate({ id, fileId: f.id }, { onError: (e) => toast({ tone: 'error', message: messageOf(e, tc('somethingWrong')) }) })
                  }
                />
              ))}
            </ul>
          )}
          <TrySearch id={id} />
          <ConfirmDialog
            open={confirm}
            title={t('deleteTitle')}
            message={t('deleteMessage', { name: data.collection.name })}
            confirmLabel={tc('delete')}
            pending={m.remove.isPending}
            onCancel={() => setConfirm(false)}
            onConfirm={() =>
              m.remove.mutate(id, {
                onSuccess: () => {
                  setConfirm(false);
                  onDeleted();
                },
                onError: (e) => toast({ tone: 'error', message: messageOf(e, tc('somethingWrong')) }),
              })
            }
          />
        </section>
      )}
    </QueryContent>
  );
}

function FileRow({ file: f, onDelete }: { file: AppKnowledgeFile; onDelete: () => void }) {
  const t = useTranslations('knowledge');
  const pct = f.chunks ? Math.round((100 * f.chunksDone) / f.chunks) : 0;
  const status =
    f.status === 'ready'
      ? t('passages', { count: f.chunks })
      : f.status === 'failed'
        ? t('statusFailed')
        : f.status === 'queued'
          ? t('statusQueued')
          : t('statusIndexing', { pct });
  return (
    <li className="flex items-center gap-3 px-3 py-2" data-testid="knowledge-file" data-status={f.status}>
      <div className="min-w-0 flex-1">
        <p className="truncate text-sm font-medium">{f.name}</p>
        <p className={cn('text-xs', f.status === 'failed' ? 'text-error' : 'text-muted-foreground')}>
          {size(f.size)} · {status}
          {f.error ? `: ${f.error}` : ''}
          {f.note ? ` · ${f.note}` : ''}
        </p>
        {(f.status === 'indexing' || f.status === 'queued') && (
          <div
            className="mt-1 h-1.5 overflow-hidden rounded bg-muted"
            role="progressbar"
            aria-label={t('indexingFile', { name: f.name })}
            aria-valuenow={pct}
            aria-valuemin={0}
            aria-valuemax={100}
            data-testid="file-progress"
          >
            <div className="h-full bg-primary transition-[width]" style={{ width: `${pct}%` }} />
          </div>
        )}
      </div>
      <IconButton label={t('deleteFile', { name: f.name })} size="sm" onClick={onDelete} data-testid="delete-file">
        <TrashIcon className="size-4" />
      </IconButton>
    </li>
  );
}

function TrySearch({ id }: { id: string }) {
  const t = useTranslations('knowledge');
  const tc = useTranslations('common');
  const m = useKnowledgeMutations();
  const [query, setQuery] = useState('');
  const [result, setResult] = useState<AppKnowledgeSearch | null>(null);
  return (
    <div className="flex flex-col gap-2">
      <form
        className="flex items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (query.trim()) m.search.mutate({ id, query: query.trim() }, { onSuccess: setResult });
        }}
      >
        <InputField
          id="knowledge-search"
          label={t('tryQuestion')}
          placeholder={t('tryPlaceholder')}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          className="flex-1"
          data-testid="knowledge-search"
        />
        <Button type="submit" variant="secondary" pending={m.search.isPending} disabled={!query.trim()} data-testid="knowledge-search-go">
          {t('search')}
        </Button>
      </form>
      {m.search.error && <Alert title={t('searchFailed')}>{messageOf(m.search.error, tc('somethingWrong'))}</Alert>}
      {result && (
        <ol className="flex flex-col gap-2 text-sm">
          {result.hits.length === 0 && <li className="text-muted-foreground">{t('noMatch')}</li>}
          {result.hits.map((h, i) => (
            <li key={h.chunkId} className="rounded-lg border border-border p-2" data-testid="knowledge-hit">
              <p className="text-xs text-muted-foreground">
                {t('hit', { n: i + 1, file: h.fileName, seq: h.seq + 1 })}
                {h.lexicalRank ? t('byWordsRank', { rank: h.lexicalRank }) : ''}
                {h.vectorRank ? t('byMeaningRank', { rank: h.vectorRank }) : ''}
              </p>
              <p className="line-clamp-4 whitespace-pre-line">{h.text}</p>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

'use client';
// /private: end-to-end encrypted chats. The page holds the keys: it unlocks the vault with the passphrase, opens the
// titles and messages the server keeps sealed, and searches them here. Nothing readable leaves the page.
// data-testid: private-page, private-new-chat, private-search, private-chat-item (data-id), private-locked.
import { useTranslations } from 'use-intl';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { call } from '@/components/api/client.ts';
import { LoadError, LoadingBlock } from '@/components/ui/query-state.tsx';
import { Button } from '@/components/ui/button.tsx';
import { cn } from '@/components/ui/cn.ts';
import { LockIcon } from '@/components/ui/icons.tsx';
import { openText } from './crypto.ts';
import { type OpenChat, PrivateChat } from './private-chat.tsx';
import { VaultGate } from './vault-gate.tsx';

interface ChatEntry {
  id: string;
  title: string;
  modelId: string;
  updatedAt: number;
}

export function PrivatePage() {
  const t = useTranslations('private');
  const qc = useQueryClient();
  const vault = useQuery({ queryKey: ['private-vault'], queryFn: ({ signal }) => call('GET /private/vault', { signal }) });
  const models = useQuery({ queryKey: ['models'], queryFn: ({ signal }) => call('GET /models', { signal }), staleTime: 5 * 60_000 });
  const [key, setKey] = useState<CryptoKey | null>(null);
  const [chats, setChats] = useState<ChatEntry[]>([]);
  const [open, setOpen] = useState<OpenChat | null>(null);
  const [search, setSearch] = useState('');
  const [bodies, setBodies] = useState<Record<string, string>>({});

  const defaultModel = models.data?.models.find((m) => m.capabilities.e2ee)?.id ?? '';
  const fresh = useCallback((): OpenChat => ({ id: null, title: '', modelId: defaultModel, messages: [] }), [defaultModel]);

  const refresh = useCallback(async () => {
    if (!key) return;
    const { chats: sealed } = await call('GET /private/chats');
    setChats(
      await Promise.all(
        sealed.map(async (c) => ({ id: c.id, modelId: c.modelId, updatedAt: c.updatedAt, title: await openText(key, c.title).catch(() => t('cannotOpen')) })),
      ),
    );
  }, [key, t]);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  useEffect(() => {
    if (key && !open && defaultModel) setOpen(fresh());
  }, [key, open, defaultModel, fresh]);

  async function load(id: string): Promise<OpenChat> {
    const { chat, messages } = await call('GET /private/chats/:id', { params: { id } });
    const plain = await Promise.all(messages.map(async (m) => ({ role: m.role, content: await openText(key!, m.content).catch(() => t('cannotOpen')) })));
    return { id: chat.id, modelId: chat.modelId, title: await openText(key!, chat.title).catch(() => ''), messages: plain };
  }

  // Search runs here, on the opened text: the server holds nothing it could search.
  useEffect(() => {
    if (!search.trim() || !key) return;
    const missing = chats.filter((c) => bodies[c.id] === undefined);
    if (!missing.length) return;
    void Promise.all(
      missing.map(
        async (c) =>
          [
            c.id,
            await load(c.id).then(
              (o) => o.messages.map((m) => m.content).join('\n'),
              () => '',
            ),
          ] as const,
      ),
    ).then((got) => setBodies((b) => ({ ...b, ...Object.fromEntries(got) })));
  });
  const shown = useMemo(() => {
    const q = search.trim().toLowerCase();
    return q ? chats.filter((c) => c.title.toLowerCase().includes(q) || (bodies[c.id] ?? '').toLowerCase().includes(q)) : chats;
  }, [chats, bodies, search]);

  if (vault.isPending) return <LoadingBlock label={t('loading')} />;
  if (vault.isError) return <LoadError title={t('loadFailed')} error={vault.error} onRetry={() => vault.refetch()} />;
  if (!key)
    return (
      <div className="flex flex-1 flex-col justify-center p-4" data-testid="private-page" data-state="locked">
        <VaultGate
          vault={vault.data.vault}
          onUnlocked={(k) => {
            setKey(k);
            void qc.invalidateQueries({ queryKey: ['private-vault'] });
          }}
        />
      </div>
    );

  return (
    <div className="flex min-h-0 flex-1 flex-col gap-4 p-4 md:flex-row" data-testid="private-page" data-state="unlocked">
      <aside className="flex shrink-0 flex-col gap-2 max-md:max-h-48 md:w-60" aria-label={t('chats')}>
        <Button variant="secondary" data-testid="private-new-chat" onClick={() => setOpen(fresh())}>
          <LockIcon className="size-4" /> {t('newChat')}
        </Button>
        <label htmlFor="private-search" className="sr-only">
          {t('searchLabel')}
        </label>
        <input
          id="private-search"
          data-testid="private-search"
          className="h-9 rounded-lg border border-input bg-background px-3 text-sm"
          placeholder={t('searchPlaceholder')}
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <ul className="flex flex-col gap-1 overflow-y-auto">
          {shown.map((c) => (
            <li key={c.id}>
              <button
                type="button"
                data-testid="private-chat-item"
                data-id={c.id}
                className={cn('w-full truncate rounded-lg px-2 py-1.5 text-left text-sm hover:bg-accent', open?.id === c.id && 'bg-accent font-medium')}
                onClick={async () => setOpen(await load(c.id))}
              >
                {c.title || t('untitled')}
              </button>
            </li>
          ))}
        </ul>
      </aside>
      {open && models.data && (
        <PrivateChat
          chat={open}
          models={models.data.models}
          vault={key}
          onSaved={(c) => {
            setBodies((b) => ({ ...b, [c.id!]: c.messages.map((m) => m.content).join('\n') }));
            void refresh();
          }}
          onDelete={async () => {
            if (!open.id) return;
            await call('DELETE /private/chats/:id', { params: { id: open.id } });
            setOpen(fresh());
            await refresh();
          }}
        />
      )}
    </div>
  );
}

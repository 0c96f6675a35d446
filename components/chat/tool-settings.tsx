// The chat settings' tools: the operator's MCP servers this chat's answers may call (for models that can call
// tools), each a switch; an HTTP server also takes the user's own token, sent instead of the operator's and sealed
// on the server (it is never shown again, only that one is set).
import { useTranslations } from 'use-intl';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { call } from '@/components/api/client.ts';
import type { AppToolServer } from '@/lib/wire.ts';

const TOOLS_KEY = ['tools'] as const;

function OwnToken({ server }: { server: AppToolServer }) {
  const t = useTranslations('chat.tools');
  const id = useId();
  const qc = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [token, setToken] = useState('');
  const save = useMutation({
    mutationFn: (value: string | null) =>
      call('PUT /tools/:id/headers', { params: { id: server.id }, body: { headers: value ? { Authorization: `Bearer ${value}` } : null } }),
    onSuccess: () => {
      setEditing(false);
      setToken('');
      void qc.invalidateQueries({ queryKey: TOOLS_KEY });
    },
  });
  if (!editing) {
    return (
      <button type="button" className="text-xs font-medium text-primary underline" onClick={() => setEditing(true)} data-testid="tool-token-edit">
        {server.hasUserHeaders ? t('tokenSet') : t('ownToken')}
      </button>
    );
  }
  return (
    <span className="mt-1 flex items-center gap-1">
      <label htmlFor={`${id}-tok`} className="sr-only">
        {t('tokenFor', { server: server.name })}
      </label>
      <input
        id={`${id}-tok`}
        type="password"
        autoComplete="off"
        value={token}
        onChange={(e) => setToken(e.target.value)}
        placeholder={t('tokenPlaceholder')}
        className="h-8 min-w-0 flex-1 rounded-md border border-input bg-background px-2 text-sm"
        data-testid="tool-token-input"
      />
      <button type="button" className="text-xs font-medium text-primary" disabled={!token || save.isPending} onClick={() => save.mutate(token)}>
        {t('save')}
      </button>
      {server.hasUserHeaders && (
        <button type="button" className="text-xs text-muted-foreground" disabled={save.isPending} onClick={() => save.mutate(null)}>
          {t('remove')}
        </button>
      )}
      {save.isError && <span className="text-xs text-error">{save.error.message}</span>}
    </span>
  );
}

interface Props {
  value: string[] | undefined;
  onChange: (ids: string[] | undefined) => void;
  /** Whether the chat's model can call tools (false: the switches are kept, but say they do nothing with it). */
  supported?: boolean;
}

export function ToolSettings({ value, onChange, supported }: Props) {
  const t = useTranslations('chat.tools');
  const q = useQuery({ queryKey: TOOLS_KEY, queryFn: ({ signal }) => call('GET /tools', { signal }) });
  const servers = q.data?.servers ?? [];
  if (!servers.length) return null;
  const on = new Set(value ?? []);
  const toggle = (id: string, checked: boolean) => {
    const next = servers.map((s) => s.id).filter((x) => (x === id ? checked : on.has(x)));
    onChange(next.length ? next : undefined);
  };
  return (
    <fieldset data-testid="tool-settings">
      <legend className="block text-sm font-medium text-foreground">{t('legend')}</legend>
      {supported === false ? (
        <p className="text-xs text-muted-foreground" data-testid="tools-unsupported">
          {t('unsupported')}
        </p>
      ) : (
        <p className="text-xs text-muted-foreground">{t('note')}</p>
      )}
      <div className="mt-1 space-y-1.5">
        {servers.map((s) => (
          <div key={s.id} className="text-sm">
            <label className="flex items-center gap-2">
              <input
                type="checkbox"
                checked={on.has(s.id)}
                onChange={(e) => toggle(s.id, e.target.checked)}
                className="size-4 accent-[var(--primary)]"
                data-testid="tool-toggle"
                data-name={s.name}
              />
              {s.name}
            </label>
            {s.id === 'builtin:code' && <p className="ml-6 text-xs text-muted-foreground">{t('code')}</p>}
            {s.id === 'builtin:web' && <p className="ml-6 text-xs text-muted-foreground">{t('web')}</p>}
            {s.transport === 'http' && (
              <div className="ml-6">
                <OwnToken server={s} />
              </div>
            )}
          </div>
        ))}
      </div>
    </fieldset>
  );
}

'use client';
// Import chat history from another app: a ChatGPT export (conversations.json), or an Open WebUI or LibreChat JSON
// export, or this app's own (a chat's JSON, or the zip of all chats). The file goes to the server as it is; the answer lists what was taken and what was left out, and why.
// data-testid: import-file, import-result, import-skipped.
import { useTranslations } from 'use-intl';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { call, qk } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import type { AppImportResult } from '@/lib/wire.ts';

const SOURCE: Record<AppImportResult['source'], string> = { chatgpt: 'ChatGPT', 'open-webui': 'Open WebUI', librechat: 'LibreChat', lagoon: 'Lagoon' };

export function ImportChats() {
  const t = useTranslations('importChats');
  const id = useId();
  const qc = useQueryClient();
  const run = useMutation({
    mutationFn: (file: File) => call('POST /conversations/import', { raw: file }),
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.conversations }),
  });
  const r = run.data;
  return (
    <div className="flex flex-col gap-2">
      <label htmlFor={id} className="text-sm font-medium">
        {t.rich('label', { code: (name) => <code>{name}</code> })}
      </label>
      <input
        id={id}
        type="file"
        accept=".json,.zip,application/json,application/zip"
        data-testid="import-file"
        disabled={run.isPending}
        className="text-sm"
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) run.mutate(f);
          e.target.value = '';
        }}
      />
      {run.isPending && <Spinner label={t('importing')} className="size-5" />}
      {run.error && <Alert tone="error">{(run.error as Error).message}</Alert>}
      {r && (
        <div data-testid="import-result" className="text-sm">
          <p>
            {t('result', { source: SOURCE[r.source], count: r.imported.length, messages: r.imported.reduce((n, c) => n + c.messages, 0) })}
            {r.dropped > 0 && t('dropped', { dropped: r.dropped })}.
          </p>
          {r.skipped.length > 0 && (
            <ul data-testid="import-skipped" className="mt-1 list-disc pl-5 text-muted-foreground">
              {r.skipped.map((s, i) => (
                <li key={i}>
                  {s.title}: {s.reason}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

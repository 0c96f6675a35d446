'use client';
// "Import a card": a Character Card V2 or V3 file (.json, or .png with the card in its metadata) sent as it is to
// POST /characters/import. The server parses and checks it; its 400 message (which field is wrong) is shown as it is.
// data-testid: import-card, import-card-input, import-error.
import { useTranslations } from 'use-intl';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useRef } from 'react';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { DownloadIcon } from '@/components/ui/icons.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { charKeys, characterPath } from '@/components/characters/queries.ts';

/** The content type the server reads the body as: from the file's name when the browser gives none. */
function cardType(file: File): string {
  if (file.type === 'image/png' || file.type === 'application/json') return file.type;
  return /\.png$/i.test(file.name) ? 'image/png' : 'application/json';
}

export function ImportCard() {
  const t = useTranslations('characters');
  const input = useRef<HTMLInputElement>(null);
  const router = useRouter();
  const toast = useToast();
  const qc = useQueryClient();
  const importing = useMutation({
    mutationFn: (file: File) => call('POST /characters/import', { raw: new Blob([file], { type: cardType(file) }) }),
    onSuccess: ({ character }) => {
      void qc.invalidateQueries({ queryKey: charKeys.all });
      toast({ message: t('imported', { name: character.name }), tone: 'success' });
      router.push(characterPath(character.slug));
    },
  });

  return (
    <div className="flex flex-col gap-2">
      <input
        ref={input}
        type="file"
        accept=".json,.png,application/json,image/png"
        className="sr-only"
        tabIndex={-1}
        aria-hidden="true"
        data-testid="import-card-input"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          if (file) importing.mutate(file);
        }}
      />
      <Button variant="secondary" pending={importing.isPending} onClick={() => input.current?.click()} data-testid="import-card">
        <DownloadIcon className="size-4" /> {t('importCard')}
      </Button>
      {importing.isError && (
        <Alert title={t('importFailed')} data-testid="import-error">
          {importing.error.message}
        </Alert>
      )}
    </div>
  );
}

'use client';
// The chat settings' knowledge choice: which of the user's collections the chat searches for each question.
// data-testid: knowledge-picker, knowledge-option (data-id).
import { useTranslations } from 'use-intl';
import Link from 'next/link';
import { useCollections } from './queries.ts';

export function KnowledgePicker({ value, onChange }: { value: string[]; onChange: (ids: string[]) => void }) {
  const t = useTranslations('knowledgePicker');
  const list = useCollections();
  const collections = list.data?.collections ?? [];
  return (
    <fieldset className="space-y-1.5" data-testid="knowledge-picker">
      <legend className="block text-sm font-medium text-foreground">{t('legend')}</legend>
      {list.isPending && <p className="text-xs text-muted-foreground">{t('loading')}</p>}
      {!list.isPending && collections.length === 0 && (
        <p className="text-xs text-muted-foreground">
          {t('noneBefore')}{' '}
          <Link href="/knowledge" className="font-medium text-primary underline underline-offset-4">
            {t('addFiles')}
          </Link>
          {t('noneAfter')}
        </p>
      )}
      {collections.map((c) => (
        <label key={c.id} className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            data-testid="knowledge-option"
            data-id={c.id}
            checked={value.includes(c.id)}
            onChange={(e) => onChange(e.target.checked ? [...value, c.id] : value.filter((id) => id !== c.id))}
            className="size-4 accent-[var(--primary)]"
          />
          <span className="truncate">{c.name}</span>
          <span className="text-xs text-muted-foreground">{t('passages', { count: c.chunks })}</span>
        </label>
      ))}
    </fieldset>
  );
}

'use client';
// The rate-limit log: every refused request of the account (when, which key and model, which limit), newest first,
// filtered by limit type, model and key, a page at a time.
// data-testid: breach-log, breach-row (data-type, data-model), breach-empty, breach-type, breach-model, breach-key.
import { useTranslations } from 'use-intl';
import { useId, useState } from 'react';
import { Pager } from '@/components/billing/pager.tsx';
import { ANY_BREACH, type BreachFilters, useBreaches } from '@/components/limits/queries.ts';
import { SelectField } from '@/components/ui/fields.tsx';
import { EmptyState, LoadError } from '@/components/ui/query-state.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { DataTable, TD } from '@/components/ui/table.tsx';
import { BREACH_TYPES } from '@/lib/limits/wire.ts';
import type { BreachKind, LimitsReport } from '@/lib/wire.ts';
import { useFormat } from '@/components/i18n/format.ts';

export function BreachLog({ report }: { report: LimitsReport }) {
  const t = useTranslations('breachLog');
  const fmt = useFormat();
  const typeName = (type: string) => ((BREACH_TYPES as readonly string[]).includes(type) ? t(`types.${type as BreachKind}`) : type);
  const id = useId();
  const [f, setF] = useState<BreachFilters>(ANY_BREACH);
  const [page, setPage] = useState(1);
  const q = useBreaches(f, page);
  const set = (patch: Partial<BreachFilters>) => {
    setF((prev) => ({ ...prev, ...patch }));
    setPage(1);
  };
  return (
    <div className="flex flex-col gap-3" data-testid="breach-log">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <SelectField
          id={`${id}-type`}
          label={t('limit')}
          value={f.type}
          onChange={(e) => set({ type: e.target.value as BreachKind | '' })}
          data-testid="breach-type"
        >
          <option value="">{t('anyLimit')}</option>
          {BREACH_TYPES.map((type) => (
            <option key={type} value={type}>
              {typeName(type)}
            </option>
          ))}
        </SelectField>
        <SelectField id={`${id}-model`} label={t('model')} value={f.modelId} onChange={(e) => set({ modelId: e.target.value })} data-testid="breach-model">
          <option value="">{t('anyModel')}</option>
          {report.models.map((m) => (
            <option key={m.modelId} value={m.modelId}>
              {m.modelId}
            </option>
          ))}
        </SelectField>
        <SelectField id={`${id}-key`} label={t('key')} value={f.keyId} onChange={(e) => set({ keyId: e.target.value })} data-testid="breach-key">
          <option value="">{t('anyKey')}</option>
          {report.keys.map((k) => (
            <option key={k.id} value={k.id}>
              {k.description || t('unnamedKey')}
            </option>
          ))}
        </SelectField>
      </div>
      {q.isPending ? (
        <Spinner label={t('loading')} className="size-5" />
      ) : q.isError && !q.data ? (
        <LoadError title={t('failed')} error={q.error} />
      ) : q.data.total === 0 ? (
        <EmptyState testId="breach-empty">{t('empty')}</EmptyState>
      ) : (
        <>
          <DataTable
            label={t('label')}
            caption={t('caption')}
            columns={[{ label: t('when') }, { label: t('limit') }, { label: t('model') }, { label: t('key') }, { label: t('tier') }]}
          >
            {q.data.items.map((b, i) => (
              <tr key={`${b.at}-${i}`} className="border-t border-border" data-testid="breach-row" data-type={b.type} data-model={b.modelId}>
                <td className={TD}>{fmt.when(b.at)}</td>
                <td className={TD}>{typeName(b.type)}</td>
                <td className={TD}>{b.modelId}</td>
                <td className={TD}>{b.keyDescription ?? (b.keyId ? t('deletedKey') : '—')}</td>
                <td className={TD}>{b.tier}</td>
              </tr>
            ))}
          </DataTable>
          <Pager page={q.data.page} totalPages={q.data.totalPages} total={q.data.total} noun="refusals" onPage={setPage} />
        </>
      )}
    </div>
  );
}

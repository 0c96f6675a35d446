'use client';
// The statement: every ledger entry of the account (charges in any unit, searches and scrapes, top-ups with their
// transaction on the chain's explorer, operator grants), filtered by UTC date range, key, model and kind, a page at
// a time, and exported (CSV or JSON: every matching entry) with the same filters. Each charge links its signed receipt.
// data-testid: statement, statement-row (data-kind, data-id), statement-empty, export-csv, export-json,
// statement-from, statement-to, statement-key, statement-model, statement-kind, statement-pager.
import { useTranslations } from 'use-intl';
import { useEffect, useId, useState } from 'react';
import { Pager } from '@/components/billing/pager.tsx';
import { filterQuery, NO_FILTERS, type StatementFilters, useStatement } from '@/components/billing/queries.ts';
import { APP_API, routePath } from '@/components/api/client.ts';
import { Button, buttonClasses } from '@/components/ui/button.tsx';
import { cn } from '@/components/ui/cn.ts';
import { InputField, SelectField } from '@/components/ui/fields.tsx';
import { EmptyState, LoadError } from '@/components/ui/query-state.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { DataTable, TD } from '@/components/ui/table.tsx';
import { useDebouncedValue } from '@/components/ui/use-debounced-value.ts';
import type { AppStatementEntry, BillingSummary, StatementKind } from '@/lib/wire.ts';
import { type Formats, useFormat } from '@/components/i18n/format.ts';

/** The entry kinds, in the filter's order (their names are the catalogue's `statement.kinds`). */
const KINDS: StatementKind[] = ['inference', 'search', 'topup', 'grant', 'refund', 'correction', 'release', 'transfer'];
const UNITS = ['token', 'image', 'character', 'second', 'rpc_credit', 'call'] as const;
const ENDPOINT: Record<string, 'search' | 'scrape' | 'textParser'> = {
  '/augment/search': 'search',
  '/augment/scrape': 'scrape',
  '/augment/text-parser': 'textParser',
};

type T = ReturnType<typeof useTranslations<'statement'>>;
const units = (t: T, fmt: Formats, n: number, unit: string) =>
  (UNITS as readonly string[]).includes(unit) ? t(`units.${unit as (typeof UNITS)[number]}`, { count: n }) : `${fmt.count(n)} ${unit}`;
const short = (s: string) => (s.length > 14 ? `${s.slice(0, 8)}…${s.slice(-4)}` : s);

function Details({ e }: { e: AppStatementEntry }) {
  const t = useTranslations('statement');
  const fmt = useFormat();
  if (e.usage) {
    const u = e.usage;
    const extras = [
      u.unit === 'token' ? t('tokensInOut', { in: fmt.count(u.promptTokens), out: fmt.count(u.completionTokens) }) : '',
      u.searches ? t('searches', { count: u.searches }) : '',
      u.scrapedUrls ? t('scraped', { count: u.scrapedUrls }) : '',
      u.rpc ? u.rpc.methods.map((m) => `${m.method} ×${fmt.count(m.calls)}`).join(', ') : '',
    ]
      .filter(Boolean)
      .join(' · ');
    return (
      <>
        <span className="font-medium">{e.kind === 'search' ? (ENDPOINT[u.endpoint] ? t(`endpoints.${ENDPOINT[u.endpoint]}`) : u.endpoint) : u.modelId}</span>
        <span className="block text-xs text-muted-foreground">
          {units(t, fmt, u.quantity, u.unit)}
          {extras && ` · ${extras}`}
        </span>
      </>
    );
  }
  const c = e.credit!;
  if (e.kind === 'topup') {
    return (
      <>
        <span className="font-medium">
          {c.note === 'auto top-up'
            ? c.networkName
              ? t('autoTopupOn', { network: c.networkName })
              : t('autoTopup')
            : c.networkName
              ? t('topupOn', { network: c.networkName })
              : t('topup')}
        </span>
        <span className="block text-xs text-muted-foreground">
          {c.payer && t('from', { payer: short(c.payer) })}
          {c.transaction &&
            (c.explorerUrl ? (
              <>
                {' · '}
                <a
                  href={c.explorerUrl}
                  target="_blank"
                  rel="noopener noreferrer"
                  className="relative font-medium text-primary underline-offset-4 hover:underline"
                >
                  {t('transaction', { id: short(c.transaction) })}
                  <span className="sr-only">{t('onExplorer')}</span>
                </a>
              </>
            ) : (
              ` · ${t('transaction', { id: short(c.transaction) })}`
            ))}
        </span>
      </>
    );
  }
  if (e.kind === 'refund' || e.kind === 'release') {
    const what =
      e.kind === 'refund'
        ? t('refunded')
        : t('released', {
            amount: [c.heldUsd > 0 ? fmt.usd(c.heldUsd) : '', c.heldDiem > 0 ? `${fmt.diem(c.heldDiem)} DIEM` : ''].filter(Boolean).join(' + ') || t('nothing'),
          });
    return (
      <>
        <span className="font-medium">{t(`kinds.${e.kind}`)}</span>
        <span className="block text-xs text-muted-foreground">
          {what}
          {c.requestId && t('request', { id: short(c.requestId) })}
        </span>
      </>
    );
  }
  return (
    <>
      <span className="font-medium">{t(`kinds.${e.kind}`)}</span>
      {c.note && <span className="block max-w-xs truncate text-xs text-muted-foreground">{c.note}</span>}
    </>
  );
}

function Amount({ e }: { e: AppStatementEntry }) {
  const fmt = useFormat();
  if (e.credit) {
    const c = e.credit;
    const parts = [c.usd !== 0 ? `${c.usd > 0 ? '+' : '−'}${fmt.usd(Math.abs(c.usd))}` : '', c.diem > 0 ? `+${fmt.diem(c.diem)} DIEM` : ''].filter(Boolean);
    if (!parts.length) return <span className="text-muted-foreground">—</span>;
    return <span className={c.usd < 0 ? undefined : 'text-success'}>{parts.join(' ')}</span>;
  }
  const u = e.usage!;
  const parts = [u.usd > 0 || u.diem === 0 ? `−${fmt.usd(u.usd)}` : '', u.diem > 0 ? `−${fmt.diem(u.diem)} DIEM` : ''].filter(Boolean);
  return <>{parts.join(' ')}</>;
}

export function Statement({ filters: choices }: { filters: BillingSummary['filters'] }) {
  const t = useTranslations('statement');
  const fmt = useFormat();
  const [f, setF] = useState<StatementFilters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  // The model is typed (any id; the last 30 days' models are suggested): it filters once typing pauses.
  const [model, setModel] = useState('');
  const typed = useDebouncedValue(model.trim(), 300);
  const q = useStatement(f, page);
  const id = useId();
  const set = (patch: Partial<StatementFilters>) => {
    setF((prev) => ({ ...prev, ...patch }));
    setPage(1);
  };
  useEffect(() => {
    setF((prev) => (prev.modelId === typed ? prev : { ...prev, modelId: typed }));
    setPage(1);
  }, [typed]);
  const exportHref = (format: 'csv' | 'json') => `${APP_API}${routePath('/billing/statement/export', {}, { ...filterQuery(f), format })}`;
  const badRange = f.from && f.to && f.from > f.to;

  return (
    <div className="flex flex-col gap-3" data-testid="statement">
      <form className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6" onSubmit={(e) => e.preventDefault()} aria-label={t('filters')}>
        <InputField
          id={`${id}-from`}
          label={t('fromUtc')}
          type="date"
          value={f.from}
          max={f.to || undefined}
          onChange={(e) => set({ from: e.target.value })}
          data-testid="statement-from"
        />
        <InputField
          id={`${id}-to`}
          label={t('toUtc')}
          type="date"
          value={f.to}
          min={f.from || undefined}
          onChange={(e) => set({ to: e.target.value })}
          error={badRange ? t('badRange') : undefined}
          data-testid="statement-to"
        />
        <SelectField
          id={`${id}-kind`}
          label={t('kind')}
          value={f.kind}
          onChange={(e) => set({ kind: e.target.value as StatementKind | '' })}
          data-testid="statement-kind"
        >
          <option value="">{t('allEntries')}</option>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {t(`kinds.${k}`)}
            </option>
          ))}
        </SelectField>
        <SelectField id={`${id}-key`} label={t('key')} value={f.keyId} onChange={(e) => set({ keyId: e.target.value })} data-testid="statement-key">
          <option value="">{t('anyKey')}</option>
          {choices.keys.map((k) => (
            <option key={k.id} value={k.id}>
              {k.description || t('unnamedKey')}
              {k.revoked ? t('revoked') : ''}
            </option>
          ))}
        </SelectField>
        <InputField
          id={`${id}-model`}
          label={t('model')}
          list={`${id}-models`}
          value={model}
          placeholder={t('anyModel')}
          onChange={(e) => setModel(e.target.value)}
          data-testid="statement-model"
          autoComplete="off"
        />
        <datalist id={`${id}-models`}>
          {choices.models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <div className="flex items-end">
          <Button
            variant="ghost"
            className="w-full"
            onClick={() => {
              setModel('');
              set(NO_FILTERS);
            }}
            disabled={f === NO_FILTERS && !model}
          >
            {t('clear')}
          </Button>
        </div>
      </form>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="text-muted-foreground">{t('export')}</span>
        <a href={exportHref('csv')} download className={buttonClasses('secondary', 'sm')} data-testid="export-csv">
          CSV
        </a>
        <a href={exportHref('json')} download className={buttonClasses('secondary', 'sm')} data-testid="export-json">
          JSON
        </a>
      </div>
      {badRange ? null : q.isPending ? (
        <Spinner label={t('loading')} className="size-5" />
      ) : q.isError && !q.data ? (
        <LoadError title={t('failed')} error={q.error} onRetry={q.refetch} />
      ) : q.data.total === 0 ? (
        <EmptyState testId="statement-empty">{t('empty')}</EmptyState>
      ) : (
        <div className={cn('flex flex-col gap-3 transition-opacity', q.isPlaceholderData && 'opacity-60')} aria-busy={q.isPlaceholderData || undefined}>
          <DataTable
            label={t('label')}
            caption={t('caption')}
            columns={[{ label: t('when') }, { label: t('kind') }, { label: t('details') }, { label: t('key') }, { label: t('amount'), numeric: true }]}
          >
            {q.data.entries.map((e) => (
              <tr key={`${e.kind}:${e.id}`} className="border-t border-border align-top" data-testid="statement-row" data-kind={e.kind} data-id={e.id}>
                <td className={TD}>{fmt.when(e.at)}</td>
                <td className={TD}>{t(`kinds.${e.kind}`)}</td>
                <td className="px-3 py-2">
                  <Details e={e} />
                </td>
                <td className={TD}>{e.usage ? (e.keyDescription ?? (e.usage.apiKeyId ? t('deletedKey') : '—')) : '—'}</td>
                <td className={`${TD} text-right tabular-nums`}>
                  <Amount e={e} />
                  {e.usage && (
                    <a
                      href={`${APP_API}${routePath('/billing/receipts/:id', { id: e.id }, {})}`}
                      download={`receipt-${e.id}.json`}
                      className="relative block text-xs font-medium text-primary underline-offset-4 hover:underline"
                      data-testid="statement-receipt"
                    >
                      {t('receipt')}
                      <span className="sr-only">{t('receiptNote')}</span>
                    </a>
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
          <Pager page={q.data.page} totalPages={q.data.totalPages} total={q.data.total} noun="entries" onPage={setPage} testId="statement-pager" />
        </div>
      )}
    </div>
  );
}

'use client';
// The statement: every ledger entry of the account (charges in any unit, searches and scrapes, top-ups with their
// transaction on the chain's explorer, operator grants), filtered by UTC date range, key, model and kind, a page at
// a time, and exported (CSV or JSON: every matching entry) with the same filters. Each charge links its signed receipt.
// data-testid: statement, statement-row (data-kind, data-id), statement-empty, export-csv, export-json,
// statement-from, statement-to, statement-key, statement-model, statement-kind, statement-pager.
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
import { formatCount, formatDiem, formatUsd, formatWhen } from '@/components/usage/format.ts';
import type { AppStatementEntry, BillingSummary, StatementKind } from '@/lib/wire.ts';

const KIND_LABEL: Record<StatementKind, string> = {
  inference: 'Inference',
  search: 'Search & scrape',
  topup: 'Top-up',
  grant: 'Credit grant',
  refund: 'Refund',
  correction: 'Correction',
  release: 'Hold released',
};
const UNIT: Record<string, [string, string]> = {
  token: ['token', 'tokens'],
  image: ['image', 'images'],
  character: ['character', 'characters'],
  second: ['second', 'seconds'],
  rpc_credit: ['RPC credit', 'RPC credits'],
  call: ['call', 'calls'],
};
const ENDPOINT: Record<string, string> = { '/augment/search': 'Web search', '/augment/scrape': 'Page scrape', '/augment/text-parser': 'Text parser' };

const units = (n: number, unit: string) => `${formatCount(n)} ${(UNIT[unit] ?? [unit, unit])[n === 1 ? 0 : 1]}`;
const short = (s: string) => (s.length > 14 ? `${s.slice(0, 8)}…${s.slice(-4)}` : s);

function Details({ e }: { e: AppStatementEntry }) {
  if (e.usage) {
    const u = e.usage;
    const extras = [
      u.unit === 'token' ? `${formatCount(u.promptTokens)} in · ${formatCount(u.completionTokens)} out` : '',
      u.searches ? `${u.searches} searches` : '',
      u.scrapedUrls ? `${u.scrapedUrls} pages scraped` : '',
      u.rpc ? u.rpc.methods.map((m) => `${m.method} ×${formatCount(m.calls)}`).join(', ') : '',
    ]
      .filter(Boolean)
      .join(' · ');
    return (
      <>
        <span className="font-medium">{e.kind === 'search' ? (ENDPOINT[u.endpoint] ?? u.endpoint) : u.modelId}</span>
        <span className="block text-xs text-muted-foreground">
          {units(u.quantity, u.unit)}
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
          {c.note === 'auto top-up' ? 'Automatic USDC top-up' : 'USDC top-up'}
          {c.networkName ? ` on ${c.networkName}` : ''}
        </span>
        <span className="block text-xs text-muted-foreground">
          {c.payer && `From ${short(c.payer)}`}
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
                  Transaction {short(c.transaction)}
                  <span className="sr-only"> on the explorer (opens in a new tab)</span>
                </a>
              </>
            ) : (
              ` · Transaction ${short(c.transaction)}`
            ))}
        </span>
      </>
    );
  }
  if (e.kind === 'refund' || e.kind === 'release') {
    const what =
      e.kind === 'refund'
        ? 'Charged, then refunded: the answer did not reach you'
        : `${[c.heldUsd > 0 ? formatUsd(c.heldUsd) : '', c.heldDiem > 0 ? `${formatDiem(c.heldDiem)} DIEM` : ''].filter(Boolean).join(' + ') || 'Nothing'} set aside, nothing charged`;
    return (
      <>
        <span className="font-medium">{KIND_LABEL[e.kind]}</span>
        <span className="block text-xs text-muted-foreground">
          {what}
          {c.requestId && ` · Request ${short(c.requestId)}`}
        </span>
      </>
    );
  }
  return (
    <>
      <span className="font-medium">{KIND_LABEL[e.kind]}</span>
      {c.note && <span className="block max-w-xs truncate text-xs text-muted-foreground">{c.note}</span>}
    </>
  );
}

function Amount({ e }: { e: AppStatementEntry }) {
  if (e.credit) {
    const c = e.credit;
    const parts = [c.usd !== 0 ? `${c.usd > 0 ? '+' : '−'}${formatUsd(Math.abs(c.usd))}` : '', c.diem > 0 ? `+${formatDiem(c.diem)} DIEM` : ''].filter(Boolean);
    if (!parts.length) return <span className="text-muted-foreground">—</span>;
    return <span className={c.usd < 0 ? undefined : 'text-success'}>{parts.join(' ')}</span>;
  }
  const u = e.usage!;
  const parts = [u.usd > 0 || u.diem === 0 ? `−${formatUsd(u.usd)}` : '', u.diem > 0 ? `−${formatDiem(u.diem)} DIEM` : ''].filter(Boolean);
  return <>{parts.join(' ')}</>;
}

export function Statement({ filters: choices }: { filters: BillingSummary['filters'] }) {
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
      <form className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6" onSubmit={(e) => e.preventDefault()} aria-label="Statement filters">
        <InputField
          id={`${id}-from`}
          label="From (UTC)"
          type="date"
          value={f.from}
          max={f.to || undefined}
          onChange={(e) => set({ from: e.target.value })}
          data-testid="statement-from"
        />
        <InputField
          id={`${id}-to`}
          label="To (UTC)"
          type="date"
          value={f.to}
          min={f.from || undefined}
          onChange={(e) => set({ to: e.target.value })}
          error={badRange ? 'Ends before it starts' : undefined}
          data-testid="statement-to"
        />
        <SelectField
          id={`${id}-kind`}
          label="Kind"
          value={f.kind}
          onChange={(e) => set({ kind: e.target.value as StatementKind | '' })}
          data-testid="statement-kind"
        >
          <option value="">All entries</option>
          {Object.entries(KIND_LABEL).map(([k, label]) => (
            <option key={k} value={k}>
              {label}
            </option>
          ))}
        </SelectField>
        <SelectField id={`${id}-key`} label="Key" value={f.keyId} onChange={(e) => set({ keyId: e.target.value })} data-testid="statement-key">
          <option value="">Any key</option>
          {choices.keys.map((k) => (
            <option key={k.id} value={k.id}>
              {k.description || 'Unnamed key'}
              {k.revoked ? ' (revoked)' : ''}
            </option>
          ))}
        </SelectField>
        <InputField
          id={`${id}-model`}
          label="Model"
          list={`${id}-models`}
          value={model}
          placeholder="Any model"
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
            Clear filters
          </Button>
        </div>
      </form>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="text-muted-foreground">Export what the filters match:</span>
        <a href={exportHref('csv')} download className={buttonClasses('secondary', 'sm')} data-testid="export-csv">
          CSV
        </a>
        <a href={exportHref('json')} download className={buttonClasses('secondary', 'sm')} data-testid="export-json">
          JSON
        </a>
      </div>
      {badRange ? null : q.isPending ? (
        <Spinner label="Loading the statement" className="size-5" />
      ) : q.isError && !q.data ? (
        <LoadError title="Could not load the statement" error={q.error} onRetry={q.refetch} />
      ) : q.data.total === 0 ? (
        <EmptyState testId="statement-empty">No entries match these filters.</EmptyState>
      ) : (
        <div className={cn('flex flex-col gap-3 transition-opacity', q.isPlaceholderData && 'opacity-60')} aria-busy={q.isPlaceholderData || undefined}>
          <DataTable
            label="Statement"
            caption="Statement entries, newest first"
            columns={[{ label: 'When' }, { label: 'Kind' }, { label: 'Details' }, { label: 'Key' }, { label: 'Amount', numeric: true }]}
          >
            {q.data.entries.map((e) => (
              <tr key={`${e.kind}:${e.id}`} className="border-t border-border align-top" data-testid="statement-row" data-kind={e.kind} data-id={e.id}>
                <td className={TD}>{formatWhen(e.at)}</td>
                <td className={TD}>{KIND_LABEL[e.kind]}</td>
                <td className="px-3 py-2">
                  <Details e={e} />
                </td>
                <td className={TD}>{e.usage ? (e.keyDescription ?? (e.usage.apiKeyId ? 'Deleted key' : '—')) : '—'}</td>
                <td className={`${TD} text-right tabular-nums`}>
                  <Amount e={e} />
                  {e.usage && (
                    <a
                      href={`${APP_API}${routePath('/billing/receipts/:id', { id: e.id }, {})}`}
                      download={`receipt-${e.id}.json`}
                      className="relative block text-xs font-medium text-primary underline-offset-4 hover:underline"
                      data-testid="statement-receipt"
                    >
                      Receipt<span className="sr-only"> for this charge (signed JSON)</span>
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

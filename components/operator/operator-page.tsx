'use client';
// The operator page (/operator; the first user only): every account with its balances, live keys, 30 days' spend,
// tier and state, searchable, each manageable (grant credit, DIEM allowance, tier, disable); and the audit log of
// who did what. Anyone else is told the page is the operator's (the server refuses them too).
// data-testid: operator-page, operator-search, account-row (data-id, data-disabled), account-usd, manage-account,
// audit-log, audit-row (data-action), operator-only (plus manage-account.tsx's).
import { useTranslations } from 'use-intl';
import { tierName } from '@/components/limits/tier-name.ts';
import Link from 'next/link';
import { useId, useState } from 'react';
import { DashPage } from '@/components/billing/dash-page.tsx';
import { Pager } from '@/components/billing/pager.tsx';
import { ManageAccount, ownerOf } from '@/components/operator/manage-account.tsx';
import { useAudit, useOperatorAccounts } from '@/components/operator/queries.ts';
import { useMe } from '@/components/session/use-me.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { cn } from '@/components/ui/cn.ts';
import { InputField } from '@/components/ui/fields.tsx';
import { LoadError } from '@/components/ui/query-state.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { DataTable, TD } from '@/components/ui/table.tsx';
import { useDebouncedValue } from '@/components/ui/use-debounced-value.ts';
import { formatDiem, formatSpend, formatUsd, formatWhen } from '@/components/usage/format.ts';
import { Section } from '@/components/usage/section.tsx';
import type { OperatorAccount, OperatorAuditEntry } from '@/lib/wire.ts';

const ACTION: Record<OperatorAuditEntry['action'], string> = {
  grant: 'Granted credit',
  diem_daily: 'Set the DIEM allowance',
  tier: 'Changed the tier',
  disable: 'Disabled the account',
  enable: 'Enabled the account',
  password_reset: 'Reset the password',
  second_factor_clear: 'Cleared the second factor',
  model_add: 'Added a model',
  model_update: 'Changed a model',
  model_remove: 'Removed a model',
  character_unpublish: 'Unpublished a character',
  review_remove: 'Removed a review',
  mcp_add: 'Added an MCP server',
  mcp_update: 'Changed an MCP server',
  mcp_remove: 'Removed an MCP server',
};

function detail(e: OperatorAuditEntry): string {
  const d = e.details;
  if (e.action === 'grant') return `${formatUsd(Number(d.usd ?? 0))}${d.note ? ` · ${String(d.note)}` : ''}`;
  if (e.action === 'diem_daily') return `${formatDiem(Number(d.diemDaily ?? 0))} DIEM a day`;
  if (e.action === 'tier') return `${String(d.from)} → ${String(d.to)}`;
  if (e.action === 'password_reset') return `${String(d.email)} · a temporary password was issued`;
  if (e.action === 'second_factor_clear')
    return `${String(d.email)} · ${d.totp ? 'two-step code' : 'no two-step code'}, ${Number(d.passkeys ?? 0)} passkeys removed`;
  if (e.action === 'model_add') return `${String(d.model)} at ${String(d.baseUrl)}`;
  if (e.action === 'model_update') {
    const what = [d.disabled === true && 'disabled', d.disabled === false && 'enabled', d.pricing !== undefined && (d.pricing ? 'prices set' : 'prices reset')];
    return `${String(d.model)}: ${what.filter(Boolean).join(', ')}`;
  }
  if (e.action === 'model_remove') return String(d.model);
  if (e.action === 'mcp_add' || e.action === 'mcp_update' || e.action === 'mcp_remove') {
    const at = d.url ?? d.command;
    return `${String(d.name)}${at ? ` · ${String(at)}` : ''}${d.enabled === false ? ' · off' : ''}`;
  }
  if (e.action === 'character_unpublish') return `${String(d.name)} (${String(d.slug)})`;
  if (e.action === 'review_remove') {
    const on = d.character ? ` on ${String(d.character)}` : '';
    return `${String(d.author)}'s ${String(d.rating)}-star review${on}${d.text ? `: “${String(d.text)}”` : ''}`;
  }
  return '';
}

function Accounts() {
  const id = useId();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [managing, setManaging] = useState<OperatorAccount | null>(null);
  const debounced = useDebouncedValue(search.trim(), 250);
  const q = useOperatorAccounts(debounced, page);
  return (
    <div className="flex flex-col gap-3">
      <InputField
        id={`${id}-search`}
        label="Find an account"
        type="search"
        value={search}
        onChange={(e) => {
          setSearch(e.target.value);
          setPage(1);
        }}
        hint="By email, wallet address, name or account id."
        className="sm:max-w-sm"
        data-testid="operator-search"
      />
      {q.isPending ? (
        <Spinner label="Loading accounts" className="size-5" />
      ) : q.isError && !q.data ? (
        <LoadError title="Could not load the accounts" error={q.error} onRetry={q.refetch} />
      ) : (
        <div className={cn('flex flex-col gap-3 transition-opacity', q.isPlaceholderData && 'opacity-60')}>
          <DataTable
            label="Accounts"
            caption="Every account on this server, newest first"
            columns={[
              { label: 'Account' },
              { label: 'USD', numeric: true },
              { label: 'DIEM today / a day', numeric: true },
              { label: 'Keys', numeric: true },
              { label: 'Spent, 30 days', numeric: true },
              { label: 'Tier' },
              { label: 'Actions' },
            ]}
          >
            {q.data.accounts.map((a) => (
              <tr key={a.id} className="border-t border-border" data-testid="account-row" data-id={a.id} data-disabled={a.disabledAt !== null}>
                <th scope="row" className={`${TD} text-left font-medium`}>
                  {ownerOf(a)}
                  <span className="block text-xs font-normal text-muted-foreground">
                    {a.operator ? 'You (operator)' : a.disabledAt !== null ? 'Disabled' : a.wallet ? 'Wallet account' : a.email ? 'App user' : 'API only'}
                    {` · since ${new Date(a.createdAt).toLocaleDateString()}`}
                  </span>
                </th>
                <td className={`${TD} text-right tabular-nums`} data-testid="account-usd">
                  {formatUsd(a.balances.usd)}
                </td>
                <td className={`${TD} text-right tabular-nums`}>
                  {formatDiem(a.balances.diem)} / {formatDiem(a.balances.diemDaily)}
                </td>
                <td className={`${TD} text-right tabular-nums`}>{a.keys}</td>
                <td className={`${TD} text-right tabular-nums`}>{formatSpend(a.spent30Days.usd, a.spent30Days.diem)}</td>
                <td className={TD}>{tierName(a.tier)}</td>
                <td className={TD}>
                  <Button size="sm" variant="secondary" onClick={() => setManaging(a)} data-testid="manage-account" aria-label={`Manage ${ownerOf(a)}`}>
                    Manage
                  </Button>
                </td>
              </tr>
            ))}
          </DataTable>
          <Pager page={q.data.page} totalPages={q.data.totalPages} total={q.data.total} noun="accounts" onPage={setPage} />
        </div>
      )}
      {managing && <ManageAccount account={managing} onClose={() => setManaging(null)} />}
    </div>
  );
}

function Audit() {
  const [page, setPage] = useState(1);
  const q = useAudit(page);
  if (q.isPending) return <Spinner label="Loading the audit log" className="size-5" />;
  if (q.isError && !q.data) return <LoadError title="Could not load the audit log" error={q.error} />;
  if (q.data.total === 0) return <p className="text-sm text-muted-foreground">No operator actions yet.</p>;
  return (
    <div className="flex flex-col gap-3" data-testid="audit-log">
      <DataTable
        label="Audit log"
        caption="Operator actions, newest first"
        columns={[{ label: 'When' }, { label: 'Who' }, { label: 'What' }, { label: 'Account' }]}
      >
        {q.data.entries.map((e) => (
          <tr key={e.id} className="border-t border-border" data-testid="audit-row" data-action={e.action}>
            <td className={TD}>{formatWhen(e.at)}</td>
            <td className={TD}>{e.actor}</td>
            <td className="px-3 py-2">
              {ACTION[e.action] ?? e.action}
              {detail(e) && <span className="block text-xs text-muted-foreground">{detail(e)}</span>}
            </td>
            <td className={`${TD} font-mono text-xs`}>{e.accountId ? e.accountId.slice(0, 8) : e.action.startsWith('model_') ? 'catalogue' : 'server'}</td>
          </tr>
        ))}
      </DataTable>
      <Pager page={q.data.page} totalPages={q.data.totalPages} total={q.data.total} noun="actions" onPage={setPage} />
    </div>
  );
}

export function OperatorPage() {
  const t = useTranslations('operator');
  const me = useMe();
  const user = me.data?.user;
  const operator = Boolean(user?.isAdmin && !user.wallet);
  return (
    <DashPage title={t('title')} description={t('description')} current="/operator" testId="operator-page">
      {!operator ? (
        <Alert tone="info" data-testid="operator-only">
          {t('only')}
        </Alert>
      ) : (
        <>
          <p className="text-sm">
            <Link href="/operator/models" className="font-medium text-primary underline-offset-4 hover:underline" data-testid="operator-models-link">
              {t('modelsLink')}
            </Link>
          </p>
          <p className="text-sm">
            <Link href="/operator/tools" className="font-medium text-primary underline-offset-4 hover:underline" data-testid="operator-tools-link">
              {t('toolsLink')}
            </Link>
          </p>
          <Section id="operator-accounts" title={t('accounts')}>
            <Accounts />
          </Section>
          <Section id="operator-audit" title={t('audit')} note={t('auditNote')}>
            <Audit />
          </Section>
        </>
      )}
    </DashPage>
  );
}

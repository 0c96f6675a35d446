'use client';
// The operator page (/operator; the first user only): every account with its balances, live keys, 30 days' spend,
// tier and state, searchable, each manageable (grant credit, DIEM allowance, tier, disable); and the audit log of
// who did what. Anyone else is told the page is the operator's (the server refuses them too).
// data-testid: operator-page, operator-search, account-row (data-id, data-disabled), account-usd, manage-account,
// audit-log, audit-row (data-action), operator-only (plus manage-account.tsx's).
import { useTranslations } from 'use-intl';
import { tierKey } from '@/components/limits/tier-name.ts';
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
import { Section } from '@/components/usage/section.tsx';
import type { OperatorAccount, OperatorAuditEntry } from '@/lib/wire.ts';
import { type Formats, useFormat } from '@/components/i18n/format.ts';

/** The audit log's actions (their names are the catalogue's `operatorPage.actions`). */
const ACTIONS: OperatorAuditEntry['action'][] = [
  'grant',
  'diem_daily',
  'tier',
  'disable',
  'enable',
  'password_reset',
  'second_factor_clear',
  'model_add',
  'model_update',
  'model_remove',
  'character_unpublish',
  'review_remove',
  'mcp_add',
  'mcp_update',
  'mcp_remove',
];

type T = ReturnType<typeof useTranslations<'operatorPage'>>;

function detail(e: OperatorAuditEntry, t: T, fmt: Formats): string {
  const d = e.details;
  if (e.action === 'grant') return `${fmt.usd(Number(d.usd ?? 0))}${d.note ? ` · ${String(d.note)}` : ''}`;
  if (e.action === 'diem_daily') return t('diemADay', { amount: fmt.diem(Number(d.diemDaily ?? 0)) });
  if (e.action === 'tier') return `${String(d.from)} → ${String(d.to)}`;
  if (e.action === 'password_reset') return t('tempPassword', { email: String(d.email) });
  if (e.action === 'second_factor_clear') return t('secondFactor', { email: String(d.email), totp: d.totp ? 'yes' : 'no', passkeys: Number(d.passkeys ?? 0) });
  if (e.action === 'model_add') return t('modelAt', { model: String(d.model), url: String(d.baseUrl) });
  if (e.action === 'model_update') {
    const what = [
      d.disabled === true && t('disabled'),
      d.disabled === false && t('enabled'),
      d.pricing !== undefined && (d.pricing ? t('pricesSet') : t('pricesReset')),
    ];
    return `${String(d.model)}: ${what.filter(Boolean).join(', ')}`;
  }
  if (e.action === 'model_remove') return String(d.model);
  if (e.action === 'mcp_add' || e.action === 'mcp_update' || e.action === 'mcp_remove') {
    const at = d.url ?? d.command;
    return `${String(d.name)}${at ? ` · ${String(at)}` : ''}${d.enabled === false ? t('off') : ''}`;
  }
  if (e.action === 'character_unpublish') return `${String(d.name)} (${String(d.slug)})`;
  if (e.action === 'review_remove') {
    const who = { author: String(d.author), rating: String(d.rating) };
    const review = d.character ? t('reviewOn', { ...who, character: String(d.character) }) : t('review', who);
    return `${review}${d.text ? `: “${String(d.text)}”` : ''}`;
  }
  return '';
}

function Accounts() {
  const t = useTranslations('operatorPage');
  const tc = useTranslations('common');
  const tiers = useTranslations('tiers');
  const fmt = useFormat();
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
        label={t('find')}
        type="search"
        value={search}
        onChange={(e) => {
          setSearch(e.target.value);
          setPage(1);
        }}
        hint={t('findHint')}
        className="sm:max-w-sm"
        data-testid="operator-search"
      />
      {q.isPending ? (
        <Spinner label={t('loadingAccounts')} className="size-5" />
      ) : q.isError && !q.data ? (
        <LoadError title={t('accountsFailed')} error={q.error} onRetry={q.refetch} />
      ) : (
        <div className={cn('flex flex-col gap-3 transition-opacity', q.isPlaceholderData && 'opacity-60')}>
          <DataTable
            label={t('accounts')}
            caption={t('accountsCaption')}
            columns={[
              { label: t('account') },
              { label: t('usd'), numeric: true },
              { label: t('diem'), numeric: true },
              { label: t('keys'), numeric: true },
              { label: t('spent30'), numeric: true },
              { label: t('tier') },
              { label: t('actionsColumn') },
            ]}
          >
            {q.data.accounts.map((a) => (
              <tr key={a.id} className="border-t border-border" data-testid="account-row" data-id={a.id} data-disabled={a.disabledAt !== null}>
                <th scope="row" className={`${TD} text-left font-medium`}>
                  {ownerOf(a, tc('wallet'))}
                  <span className="block text-xs font-normal text-muted-foreground">
                    {a.operator
                      ? t('you')
                      : a.disabledAt !== null
                        ? t('disabledAccount')
                        : a.wallet
                          ? t('walletAccount')
                          : a.email
                            ? t('appUser')
                            : t('apiOnly')}
                    {t('since', { date: fmt.date(a.createdAt, {}) })}
                  </span>
                </th>
                <td className={`${TD} text-right tabular-nums`} data-testid="account-usd">
                  {fmt.usd(a.balances.usd)}
                </td>
                <td className={`${TD} text-right tabular-nums`}>
                  {fmt.diem(a.balances.diem)} / {fmt.diem(a.balances.diemDaily)}
                </td>
                <td className={`${TD} text-right tabular-nums`}>{a.keys}</td>
                <td className={`${TD} text-right tabular-nums`}>{fmt.spend(a.spent30Days.usd, a.spent30Days.diem)}</td>
                <td className={TD}>{tiers(tierKey(a.tier))}</td>
                <td className={TD}>
                  <Button
                    size="sm"
                    variant="secondary"
                    onClick={() => setManaging(a)}
                    data-testid="manage-account"
                    aria-label={t('manageLabel', { owner: ownerOf(a, tc('wallet')) })}
                  >
                    {t('manage')}
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
  const t = useTranslations('operatorPage');
  const fmt = useFormat();
  const [page, setPage] = useState(1);
  const q = useAudit(page);
  if (q.isPending) return <Spinner label={t('loadingAudit')} className="size-5" />;
  if (q.isError && !q.data) return <LoadError title={t('auditFailed')} error={q.error} />;
  if (q.data.total === 0) return <p className="text-sm text-muted-foreground">{t('noActions')}</p>;
  return (
    <div className="flex flex-col gap-3" data-testid="audit-log">
      <DataTable
        label={t('audit')}
        caption={t('auditCaption')}
        columns={[{ label: t('when') }, { label: t('who') }, { label: t('what') }, { label: t('account') }]}
      >
        {q.data.entries.map((e) => (
          <tr key={e.id} className="border-t border-border" data-testid="audit-row" data-action={e.action}>
            <td className={TD}>{fmt.when(e.at)}</td>
            <td className={TD}>{e.actor}</td>
            <td className="px-3 py-2">
              {ACTIONS.includes(e.action) ? t(`actions.${e.action}`) : e.action}
              {detail(e, t, fmt) && <span className="block text-xs text-muted-foreground">{detail(e, t, fmt)}</span>}
            </td>
            <td className={`${TD} font-mono text-xs`}>
              {e.accountId ? e.accountId.slice(0, 8) : e.action.startsWith('model_') ? t('catalogue') : t('server')}
            </td>
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

'use client';
// The latest requests of the period (at most 50): when, which model, tokens (or, billed in another unit, how many:
// a JSON-RPC call's credits, with its methods) and cost. Never what was asked.
import { useTranslations } from 'use-intl';
import type { UsageRequest } from '@/lib/wire.ts';
import { DataTable, TD } from '@/components/ui/table.tsx';
import { formatRpcMethods, formatUnits } from '@/components/usage/format.ts';
import { useModelNames } from '@/components/usage/model-table.tsx';
import { useFormat } from '@/components/i18n/format.ts';

export function RecentTable({ requests, showVia }: { requests: UsageRequest[]; showVia: boolean }) {
  const t = useTranslations('usage');
  const fmt = useFormat();
  const nameOf = useModelNames();
  return (
    <DataTable
      label={t('recent')}
      caption={t('recentCaption')}
      className="tabular-nums"
      columns={[
        { label: t('time') },
        { label: t('model') },
        { label: t('tokensIn'), numeric: true },
        { label: t('tokensOut'), numeric: true },
        { label: t('cost'), numeric: true },
        showVia && { label: t('via') },
      ]}
    >
      {requests.map((r, i) => {
        const units = formatUnits(r.unit, r.quantity, fmt.count);
        return (
          <tr key={`${r.at}-${i}`} className="border-t border-border" data-testid="usage-recent-row">
            <td className={TD}>
              <time dateTime={new Date(r.at).toISOString()}>{fmt.when(r.at)}</time>
            </td>
            <td className={TD}>
              {nameOf(r.modelId)}
              {r.rpc && <span className="block text-xs text-muted-foreground">{formatRpcMethods(r.rpc.methods)}</span>}
            </td>
            {units ? (
              <td colSpan={2} className={`${TD} text-right`} data-testid="usage-units">
                {units}
              </td>
            ) : (
              <>
                <td className={`${TD} text-right`}>{fmt.count(r.promptTokens)}</td>
                <td className={`${TD} text-right`}>{fmt.count(r.completionTokens)}</td>
              </>
            )}
            <td className={`${TD} text-right`}>{fmt.spend(r.usd, r.diem)}</td>
            {showVia && <td className={`${TD} text-muted-foreground`}>{r.via || t('unnamedKey')}</td>}
          </tr>
        );
      })}
    </DataTable>
  );
}

'use client';
// The latest requests of the period (at most 50): when, which model, tokens (or, billed in another unit, how many:
// a JSON-RPC call's credits, with its methods) and cost. Never what was asked.
import type { UsageRequest } from '@/lib/wire.ts';
import { DataTable, TD } from '@/components/ui/table.tsx';
import { formatCount, formatRpcMethods, formatSpend, formatUnits, formatWhen } from '@/components/usage/format.ts';
import { useModelNames } from '@/components/usage/model-table.tsx';

export function RecentTable({ requests, showVia }: { requests: UsageRequest[]; showVia: boolean }) {
  const nameOf = useModelNames();
  return (
    <DataTable
      label="Recent requests"
      caption="Recent requests, newest first"
      className="tabular-nums"
      columns={[
        { label: 'Time' },
        { label: 'Model' },
        { label: 'Tokens in', numeric: true },
        { label: 'Tokens out', numeric: true },
        { label: 'Cost', numeric: true },
        showVia && { label: 'Via' },
      ]}
    >
      {requests.map((r, i) => {
        const units = formatUnits(r.unit, r.quantity);
        return (
          <tr key={`${r.at}-${i}`} className="border-t border-border" data-testid="usage-recent-row">
            <td className={TD}>
              <time dateTime={new Date(r.at).toISOString()}>{formatWhen(r.at)}</time>
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
                <td className={`${TD} text-right`}>{formatCount(r.promptTokens)}</td>
                <td className={`${TD} text-right`}>{formatCount(r.completionTokens)}</td>
              </>
            )}
            <td className={`${TD} text-right`}>{formatSpend(r.usd, r.diem)}</td>
            {showVia && <td className={`${TD} text-muted-foreground`}>{r.via || 'Unnamed key'}</td>}
          </tr>
        );
      })}
    </DataTable>
  );
}

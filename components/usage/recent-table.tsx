'use client';
// The latest requests of the period (at most 50): when, which model, tokens (or, billed in another unit, how many:
// a JSON-RPC call's credits, with its methods) and cost. Never what was asked.
import type { UsageRequest } from '@/lib/app/wire.ts';
import { formatCount, formatRpcMethods, formatSpend, formatUnits, formatWhen } from '@/components/usage/format.ts';
import { useModelNames } from '@/components/usage/model-table.tsx';
import { TableFrame, TD, TH } from '@/components/usage/table-frame.tsx';

export function RecentTable({ requests, showVia }: { requests: UsageRequest[]; showVia: boolean }) {
  const nameOf = useModelNames();
  return (
    <TableFrame label="Recent requests">
      <table className="w-full text-sm tabular-nums">
        <caption className="sr-only">Recent requests, newest first</caption>
        <thead className="bg-muted text-left text-muted-foreground">
          <tr>
            <th scope="col" className={TH}>
              Time
            </th>
            <th scope="col" className={TH}>
              Model
            </th>
            <th scope="col" className={`${TH} text-right`}>
              Tokens in
            </th>
            <th scope="col" className={`${TH} text-right`}>
              Tokens out
            </th>
            <th scope="col" className={`${TH} text-right`}>
              Cost
            </th>
            {showVia && (
              <th scope="col" className={TH}>
                Via
              </th>
            )}
          </tr>
        </thead>
        <tbody>
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
        </tbody>
      </table>
    </TableFrame>
  );
}

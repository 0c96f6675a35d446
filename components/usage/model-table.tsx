'use client';
// Usage per model over the period, by spend; model names from the chat's model list when it has them. Usage billed in
// another unit shows its count there instead of tokens (a JSON-RPC network: its RPC credits and main methods).
import { useQuery } from '@tanstack/react-query';
import { useTranslations } from 'use-intl';
import { call, qk } from '@/components/api/client.ts';
import type { UsageModel } from '@/lib/wire.ts';
import { DataTable, TD } from '@/components/ui/table.tsx';
import { formatRpcMethods, formatUnits } from '@/components/usage/format.ts';
import { useFormat } from '@/components/i18n/format.ts';

export function useModelNames(): (id: string) => string {
  const models = useQuery({ queryKey: qk.models, queryFn: ({ signal }) => call('GET /models', { signal }), staleTime: 5 * 60_000 });
  const names = new Map((models.data?.models ?? []).map((m) => [m.id, m.name]));
  // JSON-RPC proxy calls are billed to `rpc:<network>`.
  return (id) => names.get(id) ?? (id.startsWith('rpc:') ? `JSON-RPC ${id.slice(4)}` : id);
}

export function ModelTable({ models }: { models: UsageModel[] }) {
  const t = useTranslations('usage');
  const fmt = useFormat();
  const nameOf = useModelNames();
  return (
    <DataTable
      label={t('byModelLabel')}
      caption={t('byModelCaption')}
      className="tabular-nums"
      columns={[
        { label: t('model') },
        { label: t('requests'), numeric: true },
        { label: t('tokensIn'), numeric: true },
        { label: t('tokensOut'), numeric: true },
        { label: t('spent'), numeric: true },
      ]}
    >
      {models.map((m) => {
        const units = formatUnits(m.unit, m.quantity, fmt.count);
        const detail = m.rpc ? formatRpcMethods(m.rpc.methods) : nameOf(m.modelId) !== m.modelId ? m.modelId : undefined;
        return (
          <tr key={`${m.modelId}:${m.unit ?? 'token'}`} className="border-t border-border" data-testid="usage-model-row" data-model={m.modelId}>
            <th scope="row" className={`${TD} text-left font-medium`}>
              {nameOf(m.modelId)}
              {detail && <span className="block text-xs font-normal text-muted-foreground">{detail}</span>}
            </th>
            <td className={`${TD} text-right`}>{fmt.count(m.requests)}</td>
            {units ? (
              <td colSpan={2} className={`${TD} text-right`} data-testid="usage-units">
                {units}
              </td>
            ) : (
              <>
                <td className={`${TD} text-right`}>{fmt.count(m.promptTokens)}</td>
                <td className={`${TD} text-right`}>{fmt.count(m.completionTokens)}</td>
              </>
            )}
            <td className={`${TD} text-right`}>{fmt.spend(m.usd, m.diem)}</td>
          </tr>
        );
      })}
    </DataTable>
  );
}

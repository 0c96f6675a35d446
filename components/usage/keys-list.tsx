'use client';
// The account's API keys: what each is, when it was made and last used, when it expires, what it spent in the last
// 7 days and against its cap. Metadata only: the server never sends a secret, hash or any characters of one.
import { LoadError } from '@/components/ui/query-state.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { DataTable, TD } from '@/components/ui/table.tsx';
import type { AppApiKey } from '@/lib/wire.ts';
import { formatSpend, formatUsd, formatDiem } from '@/components/usage/format.ts';
import { useApiKeys } from '@/components/usage/queries.ts';

const date = (ms: number | null, none: string) =>
  ms === null ? none : new Date(ms).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
const PERIOD = { EPOCH: 'a day', WEEK: 'a week', MONTH: 'a month', LIFETIME: 'in all' } as const;

function status(k: AppApiKey): string {
  if (k.revokedAt !== null) return `Revoked ${date(k.revokedAt, '')}`;
  if (k.expiresAt !== null && k.expiresAt <= Date.now()) return `Expired ${date(k.expiresAt, '')}`;
  return k.expiresAt === null ? 'Active' : `Active until ${date(k.expiresAt, '')}`;
}

function cap(k: AppApiKey): string {
  if (!k.cap) return 'No cap';
  const parts: string[] = [];
  if (k.cap.usd !== null) parts.push(`${formatUsd(k.cap.spentUsd)} of ${formatUsd(k.cap.usd)}`);
  if (k.cap.diem !== null) parts.push(`${formatDiem(k.cap.spentDiem)} of ${formatDiem(k.cap.diem)} DIEM`);
  return `${parts.join(', ')} ${PERIOD[k.cap.period]}`;
}

export function KeysList() {
  const q = useApiKeys();
  if (q.isPending) return <Spinner label="Loading your API keys" className="size-5" />;
  if (q.isError) {
    return <LoadError title="Could not load your API keys" error={q.error} onRetry={q.refetch} />;
  }
  return (
    <DataTable
      label="API keys"
      caption="Your account’s API keys"
      columns={[{ label: 'Key' }, { label: 'Status' }, { label: 'Created' }, { label: 'Last used' }, { label: 'Last 7 days', numeric: true }, { label: 'Cap' }]}
    >
      {q.data.keys.map((k) => (
        <tr key={k.id} className="border-t border-border" data-testid="key-row" data-revoked={k.revokedAt !== null}>
          <th scope="row" className={`${TD} text-left font-medium`}>
            {k.description || 'Unnamed key'}
            <span className="block text-xs font-normal text-muted-foreground">
              {k.type === 'ADMIN' ? 'Admin' : 'Inference'}
              {k.browserApp && ' · used by this app for your chats'}
            </span>
          </th>
          <td className={TD}>{status(k)}</td>
          <td className={TD}>{date(k.createdAt, '—')}</td>
          <td className={TD}>{date(k.lastUsedAt, 'Never')}</td>
          <td className={`${TD} text-right tabular-nums`}>{formatSpend(k.lastSevenDays.usd, k.lastSevenDays.diem)}</td>
          <td className={TD}>{cap(k)}</td>
        </tr>
      ))}
    </DataTable>
  );
}

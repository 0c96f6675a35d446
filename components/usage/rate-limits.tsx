'use client';
// Rate limits per chat model: requests and tokens per minute left now for the key the app chats with, plus the
// daily request figure when the tier has one. Refreshed every 10 seconds while the page is open.
import { tierName } from '@/components/limits/tier-name.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { formatCount } from '@/components/usage/format.ts';
import { useRateLimits } from '@/components/usage/queries.ts';
import { RateMeter } from '@/components/usage/rate-meter.tsx';

export function RateLimits() {
  const q = useRateLimits();
  if (q.isPending) return <Spinner label="Loading rate limits" className="size-5" />;
  if (q.isError) {
    return (
      <Alert
        title="Could not load your rate limits"
        action={
          <Button size="sm" variant="secondary" onClick={() => void q.refetch()}>
            Retry
          </Button>
        }
      >
        {q.error.message}
      </Alert>
    );
  }
  const r = q.data;
  if (r.mode === 'remote') {
    return (
      <Alert tone="info">
        Chats on this server go to an external inference provider, whose rate limits apply to the server’s own key. They are not shown here.
      </Alert>
    );
  }
  const minute = r.windowSeconds === 60 ? 'minute' : `${r.windowSeconds} s`;
  return (
    <div className="flex flex-col gap-3">
      <p className="text-sm text-muted-foreground">
        Your tier: <span className="font-medium text-foreground">{tierName(r.tier)}</span>. Limits apply per model; a request over a limit is refused until the
        window refills.
      </p>
      <ul className="grid grid-cols-1 gap-3 md:grid-cols-2">
        {r.models.map((m) => (
          <li key={m.modelId} className="flex flex-col gap-3 rounded-xl border border-border bg-card p-4" data-testid="rate-limit-model" data-model={m.modelId}>
            <div className="flex items-baseline justify-between gap-2">
              <h3 className="truncate font-medium">{m.name}</h3>
              <span className="shrink-0 text-xs text-muted-foreground">Size {m.sizeTier}</span>
            </div>
            <RateMeter label={`Requests per ${minute}`} meter={m.requestsPerMinute} unit="requests" testId="rate-requests" />
            {m.tokensPerMinute && <RateMeter label={`Tokens per ${minute}`} meter={m.tokensPerMinute} unit="tokens" testId="rate-tokens" />}
            {m.requestsPerDay !== undefined && <p className="text-xs text-muted-foreground">Also at most {formatCount(m.requestsPerDay)} requests a day.</p>}
          </li>
        ))}
      </ul>
    </div>
  );
}

'use client';
// The rate-limits page (/limits): the account's tier, and for the chosen key (each key has its own budgets) every
// model's figures with what is left now, refreshed every few seconds; then the log of refused requests.
// data-testid: limits-page, limits-tier, limits-key, limit-model (data-model), rate-requests / rate-tokens (the
// usage page's meters: data-remaining, data-limit), rate-day (the daily budget) or limit-rpd (plus breach-log.tsx's).
import { useTranslations } from 'use-intl';
import { tierName } from '@/components/limits/tier-name.ts';
import { useId, useState } from 'react';
import { DashPage } from '@/components/billing/dash-page.tsx';
import { BreachLog } from '@/components/limits/breach-log.tsx';
import { ANY_BREACH, useBreaches, useLimitsReport } from '@/components/limits/queries.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { cn } from '@/components/ui/cn.ts';
import { SelectField } from '@/components/ui/fields.tsx';
import { QueryContent } from '@/components/ui/query-state.tsx';
import { formatCount } from '@/components/usage/format.ts';
import { RateMeter } from '@/components/usage/rate-meter.tsx';
import { Section } from '@/components/usage/section.tsx';
import type { LimitsReport } from '@/lib/wire.ts';

const TYPE_LABEL: Record<string, string> = { text: 'Text', image: 'Image', tts: 'Speech', asr: 'Transcription', embedding: 'Embedding', video: 'Video' };

function Models({ report }: { report: LimitsReport }) {
  const unit = report.windowSeconds === 60 ? 'minute' : `${report.windowSeconds} s`;
  return (
    <ul className="grid grid-cols-1 gap-3 md:grid-cols-2">
      {report.models.map((m) => (
        <li
          key={m.modelId}
          className="flex min-w-0 flex-col gap-3 rounded-xl border border-border bg-card p-4"
          data-testid="limit-model"
          data-model={m.modelId}
        >
          <div className="min-w-0">
            <p className="truncate font-medium">{m.name}</p>
            <p className="truncate text-xs text-muted-foreground">
              {m.modelId} · {TYPE_LABEL[m.type] ?? m.type}
              {m.type === 'text' && m.sizeTier ? ` · size ${m.sizeTier}` : ''}
            </p>
          </div>
          <RateMeter label={`Requests per ${unit}`} meter={m.requestsPerMinute} unit="requests" testId="rate-requests" />
          {m.tokensPerMinute && <RateMeter label={`Tokens per ${unit}`} meter={m.tokensPerMinute} unit="tokens" testId="rate-tokens" />}
          {m.requestsToday ? (
            <RateMeter label="Requests per day" meter={m.requestsToday} unit="requests" testId="rate-day" />
          ) : (
            <p className="text-xs text-muted-foreground" data-testid="limit-rpd">
              {m.requestsPerDay !== undefined ? `At most ${formatCount(m.requestsPerDay)} requests a day.` : 'No daily limit.'}
            </p>
          )}
        </li>
      ))}
    </ul>
  );
}

export function LimitsPage() {
  const t = useTranslations('limits');
  const id = useId();
  const [keyId, setKeyId] = useState<string | null>(null);
  const report = useLimitsReport(keyId);
  // No waterfall: the log's first page loads alongside the meters.
  useBreaches(ANY_BREACH, 1);
  return (
    <DashPage title={t('title')} description={t('description')} current="/limits" testId="limits-page">
      <QueryContent query={report} loading={t('loading')} failed={t('failed')}>
        {(data) => (
          <>
            <div className="flex flex-col gap-3 rounded-xl border border-border bg-card p-4 sm:flex-row sm:items-end sm:justify-between">
              <p className="text-sm">
                Your account’s tier:{' '}
                <span className="font-semibold" data-testid="limits-tier">
                  {tierName(data.tier)}
                </span>
                <span className="block text-muted-foreground">
                  {data.tier === 'partner' ? 'Raised limits, set by the operator.' : 'Standard limits; the operator can raise them (partner tier).'}
                </span>
              </p>
              <SelectField
                id={`${id}-key`}
                label="Show the budgets of"
                value={data.keyId}
                onChange={(e) => setKeyId(e.target.value)}
                className="sm:w-72"
                data-testid="limits-key"
              >
                {data.keys.map((k) => (
                  <option key={k.id} value={k.id}>
                    {k.browserApp ? 'This app (your chats)' : k.description || 'Unnamed key'}
                  </option>
                ))}
              </SelectField>
            </div>
            {data.mode === 'remote' && <Alert tone="info">Chats in this app run on an external provider and are not counted here; your API keys are.</Alert>}
            <Section id="limits-models" title="Per model" note="Refreshed every few seconds. Budgets are per key and model: each key has its own.">
              <div className={cn('transition-opacity', report.isPlaceholderData && 'opacity-60')} aria-busy={report.isPlaceholderData || undefined}>
                <Models report={data} />
              </div>
            </Section>
            <Section id="limits-log" title="Refused requests">
              <BreachLog report={data} />
            </Section>
          </>
        )}
      </QueryContent>
    </DashPage>
  );
}

'use client';
// The rate-limits page (/limits): the account's tier, and for the chosen key (each key has its own budgets) every
// model's figures with what is left now, refreshed every few seconds; then the log of refused requests.
// data-testid: limits-page, limits-tier, limits-key, limit-model (data-model), rate-requests / rate-tokens (the
// usage page's meters: data-remaining, data-limit), rate-day (the daily budget) or limit-rpd (plus breach-log.tsx's).
import { useTranslations } from 'use-intl';
import { tierKey } from '@/components/limits/tier-name.ts';
import { useId, useState } from 'react';
import { DashPage } from '@/components/billing/dash-page.tsx';
import { BreachLog } from '@/components/limits/breach-log.tsx';
import { ANY_BREACH, useBreaches, useLimitsReport } from '@/components/limits/queries.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { cn } from '@/components/ui/cn.ts';
import { SelectField } from '@/components/ui/fields.tsx';
import { QueryContent } from '@/components/ui/query-state.tsx';
import { RateMeter } from '@/components/usage/rate-meter.tsx';
import { Section } from '@/components/usage/section.tsx';
import type { LimitsReport } from '@/lib/wire.ts';
import { useFormat } from '@/components/i18n/format.ts';

const MODEL_TYPES = ['text', 'image', 'tts', 'asr', 'embedding', 'video'] as const;

function Models({ report }: { report: LimitsReport }) {
  const t = useTranslations('limitsPage');
  const fmt = useFormat();
  const typeName = (type: string) => ((MODEL_TYPES as readonly string[]).includes(type) ? t(`types.${type as (typeof MODEL_TYPES)[number]}`) : type);
  const unit = report.windowSeconds === 60 ? t('minute') : t('window', { seconds: report.windowSeconds });
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
              {m.modelId} · {typeName(m.type)}
              {m.type === 'text' && m.sizeTier ? t('size', { tier: m.sizeTier }) : ''}
            </p>
          </div>
          <RateMeter label={t('requestsPer', { unit })} meter={m.requestsPerMinute} unit={t('requests')} testId="rate-requests" />
          {m.tokensPerMinute && <RateMeter label={t('tokensPer', { unit })} meter={m.tokensPerMinute} unit={t('tokens')} testId="rate-tokens" />}
          {m.requestsToday ? (
            <RateMeter label={t('requestsPerDay')} meter={m.requestsToday} unit={t('requests')} testId="rate-day" />
          ) : (
            <p className="text-xs text-muted-foreground" data-testid="limit-rpd">
              {m.requestsPerDay !== undefined ? t('atMost', { count: fmt.count(m.requestsPerDay) }) : t('noDaily')}
            </p>
          )}
        </li>
      ))}
    </ul>
  );
}

export function LimitsPage() {
  const t = useTranslations('limits');
  const tp = useTranslations('limitsPage');
  const tiers = useTranslations('tiers');
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
                {tp('tier')}
                <span className="font-semibold" data-testid="limits-tier">
                  {tiers(tierKey(data.tier))}
                </span>
                <span className="block text-muted-foreground">{data.tier === 'partner' ? tp('partnerNote') : tp('standardNote')}</span>
              </p>
              <SelectField
                id={`${id}-key`}
                label={tp('showBudgets')}
                value={data.keyId}
                onChange={(e) => setKeyId(e.target.value)}
                className="sm:w-72"
                data-testid="limits-key"
              >
                {data.keys.map((k) => (
                  <option key={k.id} value={k.id}>
                    {k.browserApp ? tp('thisApp') : k.description || tp('unnamedKey')}
                  </option>
                ))}
              </SelectField>
            </div>
            {data.mode === 'remote' && <Alert tone="info">{tp('remote')}</Alert>}
            <Section id="limits-models" title={tp('perModel')} note={tp('perModelNote')}>
              <div className={cn('transition-opacity', report.isPlaceholderData && 'opacity-60')} aria-busy={report.isPlaceholderData || undefined}>
                <Models report={data} />
              </div>
            </Section>
            <Section id="limits-log" title={tp('refused')}>
              <BreachLog report={data} />
            </Section>
          </>
        )}
      </QueryContent>
    </DashPage>
  );
}

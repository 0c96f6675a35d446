'use client';
// The alerts page: the owner's low-balance thresholds (USD, DIEM), whether keys' budgets alert at 50/80/100 %, the
// channels (an email address, a webhook URL with its signing secret), a "send test" button, and the delivery log
// (time, event, channel, status, attempts, response code), refreshed while something is still pending.
// data-testid: alerts-page, alerts-form, alert-email-on, alert-email, alert-webhook, alert-low-usd, alert-low-diem,
// alert-key-budgets, alerts-save, alerts-saved, alerts-error, webhook-secret, rotate-secret, send-test, test-sent,
// delivery-log, delivery-row (data-channel, data-status).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { useLocale, useTranslations } from 'use-intl';
import { AppApiError, call } from '@/components/api/client.ts';
import { DashPage } from '@/components/billing/dash-page.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { InputField } from '@/components/ui/fields.tsx';
import { EmptyState, QueryContent } from '@/components/ui/query-state.tsx';
import { DataTable, TD } from '@/components/ui/table.tsx';
import type { AlertDeliveryPage, AlertSettingsView } from '@/lib/wire.ts';
import { useFormat } from '@/components/i18n/format.ts';

const SETTINGS = ['alerts', 'settings'] as const;
const LOG = ['alerts', 'log'] as const;

const paramOf = (e: unknown): string | undefined => (e instanceof AppApiError && typeof e.body.param === 'string' ? e.body.param : undefined);
const amountText = (v: number | null) => (v === null ? '' : String(v));
const amountOf = (t: string): number | null => (t.trim() === '' ? null : Number(t));

function SettingsForm({ view }: { view: AlertSettingsView }) {
  const t = useTranslations('alerts');
  const id = useId();
  const qc = useQueryClient();
  const [emailOn, setEmailOn] = useState(view.saved ? view.email !== null : view.mail);
  const [email, setEmail] = useState(view.email ?? view.accountEmail);
  const [webhook, setWebhook] = useState(view.webhookUrl ?? '');
  const [lowUsd, setLowUsd] = useState(amountText(view.lowUsd));
  const [lowDiem, setLowDiem] = useState(amountText(view.lowDiem));
  const [keyBudgets, setKeyBudgets] = useState(view.keyBudgets);
  const save = useMutation({
    mutationFn: () =>
      call('PUT /alerts', {
        body: {
          email: emailOn ? email.trim() : null,
          webhookUrl: webhook.trim() || null,
          lowUsd: amountOf(lowUsd),
          lowDiem: amountOf(lowDiem),
          keyBudgets,
        },
      }),
    onSuccess: (v) => {
      qc.setQueryData(SETTINGS, v);
      void qc.invalidateQueries({ queryKey: LOG });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const field = paramOf(save.error);
  const errorOf = (p: string) => (save.isError && field === p ? save.error.message : undefined);
  return (
    <form onSubmit={submit} className="flex flex-col gap-4 rounded-xl border border-border bg-card p-4" data-testid="alerts-form" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`} className="text-lg font-semibold">
        {t('whenTo')}
      </h2>
      <div className="grid gap-4 sm:grid-cols-2">
        <InputField
          id={`${id}-usd`}
          label={t('lowUsd')}
          type="number"
          min={0}
          step="0.01"
          inputMode="decimal"
          value={lowUsd}
          onChange={(e) => setLowUsd(e.target.value)}
          hint={t('lowUsdHint')}
          error={errorOf('lowUsd')}
          data-testid="alert-low-usd"
        />
        <InputField
          id={`${id}-diem`}
          label={t('lowDiem')}
          type="number"
          min={0}
          step="0.01"
          inputMode="decimal"
          value={lowDiem}
          onChange={(e) => setLowDiem(e.target.value)}
          hint={t('lowDiemHint')}
          error={errorOf('lowDiem')}
          data-testid="alert-low-diem"
        />
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={keyBudgets} onChange={(e) => setKeyBudgets(e.target.checked)} data-testid="alert-key-budgets" />
        {t('keyBudgets')}
      </label>
      <h2 className="text-lg font-semibold">{t('whereTo')}</h2>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={emailOn} disabled={!view.mail} onChange={(e) => setEmailOn(e.target.checked)} data-testid="alert-email-on" />
        {t('email')} {view.mail ? '' : t('noMail')}
      </label>
      {emailOn && (
        <InputField
          id={`${id}-email`}
          label={t('emailAddress')}
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={errorOf('email')}
          className="sm:max-w-md"
          data-testid="alert-email"
        />
      )}
      <InputField
        id={`${id}-webhook`}
        label={t('webhookUrl')}
        type="url"
        placeholder="https://example.com/hooks/lagoon"
        value={webhook}
        onChange={(e) => setWebhook(e.target.value)}
        hint={t('webhookHint')}
        error={errorOf('webhookUrl')}
        data-testid="alert-webhook"
      />
      {save.isError && !field && (
        <Alert tone="error" data-testid="alerts-error">
          {save.error.message}
        </Alert>
      )}
      <div className="flex items-center gap-3">
        <Button type="submit" size="sm" pending={save.isPending} data-testid="alerts-save">
          {t('save')}
        </Button>
        {save.isSuccess && (
          <span role="status" className="text-sm text-success" data-testid="alerts-saved">
            {t('saved')}
          </span>
        )}
      </div>
    </form>
  );
}

function SecretAndTest({ view }: { view: AlertSettingsView }) {
  const t = useTranslations('alerts');
  const locale = useLocale();
  const qc = useQueryClient();
  const rotate = useMutation({ mutationFn: () => call('POST /alerts/secret'), onSuccess: (v) => qc.setQueryData(SETTINGS, v) });
  const test = useMutation({ mutationFn: () => call('POST /alerts/test'), onSuccess: () => void qc.invalidateQueries({ queryKey: LOG }) });
  if (!view.saved) return null;
  return (
    <section aria-labelledby="alerts-test-h" className="flex flex-col gap-3 rounded-xl border border-border bg-card p-4">
      <h2 id="alerts-test-h" className="text-lg font-semibold">
        {t('secretAndTest')}
      </h2>
      {view.webhookSecret && (
        <div className="flex flex-col gap-1 text-sm">
          <span className="font-medium">{t('secret')}</span>
          <code className="break-all rounded bg-muted px-2 py-1" data-testid="webhook-secret">
            {view.webhookSecret}
          </code>
          <span className="text-xs text-muted-foreground">{t('secretHint')}</span>
        </div>
      )}
      <div className="flex flex-wrap items-center gap-3">
        <Button size="sm" variant="secondary" pending={rotate.isPending} onClick={() => rotate.mutate()} data-testid="rotate-secret">
          {t('newSecret')}
        </Button>
        <Button size="sm" pending={test.isPending} onClick={() => test.mutate()} data-testid="send-test">
          {t('sendTest')}
        </Button>
        {test.isSuccess && (
          <span role="status" className="text-sm text-success" data-testid="test-sent">
            {t('testQueued', {
              channels: new Intl.ListFormat(locale, { type: 'conjunction' }).format(test.data.channels.map((channel) => t('channelName', { channel }))),
            })}
          </span>
        )}
        {test.isError && (
          <span role="alert" className="text-sm text-error">
            {test.error.message}
          </span>
        )}
      </div>
    </section>
  );
}

function DeliveryLog() {
  const t = useTranslations('alerts');
  const fmt = useFormat();
  const log = useQuery({
    queryKey: LOG,
    queryFn: ({ signal }) => call('GET /alerts/deliveries', { query: { page: 1, limit: 50 }, signal }),
    refetchInterval: (q) => ((q.state.data as AlertDeliveryPage | undefined)?.items.some((d) => d.status === 'pending') ? 1_000 : 5_000),
  });
  return (
    <section aria-labelledby="alerts-log-h" className="flex flex-col gap-3">
      <h2 id="alerts-log-h" className="text-lg font-semibold">
        {t('log')}
      </h2>
      <QueryContent query={log} loading={t('logLoading')} failed={t('logFailed')}>
        {(page) =>
          page.items.length === 0 ? (
            <EmptyState testId="delivery-empty">{t('noneSent')}</EmptyState>
          ) : (
            <DataTable
              label={t('deliveries')}
              caption={t('deliveriesCaption')}
              testId="delivery-log"
              columns={[
                { label: t('time') },
                { label: t('event') },
                { label: t('channel') },
                { label: t('status') },
                { label: t('attempts'), numeric: true },
                { label: t('response') },
              ]}
            >
              {page.items.map((d) => (
                <tr key={d.id} className="border-t border-border" data-testid="delivery-row" data-channel={d.channel} data-status={d.status}>
                  <td className={TD}>{fmt.dateTime(d.at)}</td>
                  <td className="px-3 py-2" title={d.summary}>
                    <span className="font-medium">{d.event}</span>
                    <span className="block max-w-md truncate text-xs text-muted-foreground">{d.summary}</span>
                  </td>
                  <td className={TD} title={d.target}>
                    {t('channelName', { channel: d.channel })}
                  </td>
                  <td className={TD}>{t('statusName', { status: d.status })}</td>
                  <td className={`${TD} text-right tabular-nums`}>{d.attempts}</td>
                  <td className={TD} title={d.error ?? undefined}>
                    {d.responseCode ?? (d.channel === 'email' && d.status === 'delivered' ? t('sent') : (d.error ?? '—'))}
                  </td>
                </tr>
              ))}
            </DataTable>
          )
        }
      </QueryContent>
    </section>
  );
}

export function AlertsPage() {
  const t = useTranslations('alerts');
  const settings = useQuery({ queryKey: SETTINGS, queryFn: ({ signal }) => call('GET /alerts', { signal }) });
  return (
    <DashPage title={t('title')} description={t('description')} current="/alerts" testId="alerts-page">
      <QueryContent query={settings} loading={t('loading')} failed={t('failed')}>
        {(view) => (
          <>
            <SettingsForm view={view} />
            <SecretAndTest view={view} />
          </>
        )}
      </QueryContent>
      <DeliveryLog />
    </DashPage>
  );
}

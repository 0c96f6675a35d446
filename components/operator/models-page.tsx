'use client';
// The operator models page (/operator/models; the first user only): every model with its engine, health and prices;
// testing an engine, disabling and enabling a model, editing token prices, removing an added model or undoing a file
// model's changes, and adding an OpenAI-compatible upstream. Changes apply at once, with no restart, and are audited.
// data-testid: operator-models-page, model-row (data-id, data-disabled, data-origin), model-status, model-test,
// model-toggle, model-prices, model-remove, price-input, price-output, price-save, models-error, default-model-select,
// default-model-effective (plus the add form's).
import { useTranslations } from 'use-intl';
import Link from 'next/link';
import { type FormEvent, useId, useState } from 'react';
import { DashPage } from '@/components/billing/dash-page.tsx';
import { AddModelForm } from '@/components/operator/add-model-form.tsx';
import { useOperatorModels, usePatchModel, useRemoveModel, useSetDefaultModel, useTestModel } from '@/components/operator/model-queries.ts';
import { useMe } from '@/components/session/use-me.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Dialog } from '@/components/ui/dialog.tsx';
import { InputField } from '@/components/ui/fields.tsx';
import { LoadError } from '@/components/ui/query-state.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { DataTable, TD } from '@/components/ui/table.tsx';
import { Section } from '@/components/usage/section.tsx';
import type { OperatorModel } from '@/lib/wire.ts';
import { type Formats, useFormat } from '@/components/i18n/format.ts';

// Up to four places, no padding: only the separators follow the language, never the digits shown.
const price = (n: number, fmt: Formats) => fmt.number(n, { style: 'currency', currency: 'USD', minimumFractionDigits: 0, maximumFractionDigits: 4 });

function Status({ m }: { m: OperatorModel }) {
  const t = useTranslations('operatorModels');
  if (m.disabled) return <span className="text-muted-foreground">{t('disabled')}</span>;
  if (!m.status) return <span className="text-muted-foreground">{t('notChecked')}</span>;
  return m.status.ok ? (
    <span className="text-success">
      {t('working')}
      {m.status.reason ? <span className="block text-xs text-muted-foreground">{m.status.reason}</span> : null}
    </span>
  ) : (
    <span className="text-error">
      {t('down')}
      <span className="block text-xs">{m.status.reason}</span>
    </span>
  );
}

function engineText(m: OperatorModel, t: ReturnType<typeof useTranslations<'operatorModels'>>): string {
  const e = m.engine;
  const where = e.baseUrls?.join(', ') ?? t('thisServer');
  const key = e.key.source === 'env' ? t('keyFrom', { name: e.key.name }) : e.key.source === 'stored' ? t('keyStored') : '';
  return `${e.kind} · ${where}${e.upstreamModel ? t('serves', { model: e.upstreamModel }) : ''}${key}`;
}

function PricesDialog({ m, onClose }: { m: OperatorModel; onClose: () => void }) {
  const t = useTranslations('operatorModels');
  const id = useId();
  const patch = usePatchModel();
  const [input, setInput] = useState(String(m.pricing?.inputUsd ?? 0));
  const [output, setOutput] = useState(String(m.pricing?.outputUsd ?? 0));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    patch.mutate({ id: m.id, body: { pricing: { inputUsd: Number(input), outputUsd: Number(output) } } }, { onSuccess: onClose });
  };
  return (
    <Dialog open onClose={onClose} title={t('pricesOf', { model: m.name })} description={t('pricesNote')} testId="prices-dialog">
      <form onSubmit={submit} className="flex flex-col gap-3">
        <InputField
          id={`${id}-in`}
          label={t('input')}
          type="number"
          min={0}
          step="any"
          required
          value={input}
          onChange={(e) => setInput(e.target.value)}
          data-testid="price-input"
        />
        <InputField
          id={`${id}-out`}
          label={t('output')}
          type="number"
          min={0}
          step="any"
          required
          value={output}
          onChange={(e) => setOutput(e.target.value)}
          data-testid="price-output"
        />
        {patch.isError && <Alert>{patch.error.message}</Alert>}
        <div className="flex flex-wrap gap-2">
          <Button type="submit" size="sm" pending={patch.isPending} data-testid="price-save">
            {t('savePrices')}
          </Button>
          {m.pricesOverridden && (
            <Button variant="secondary" size="sm" onClick={() => patch.mutate({ id: m.id, body: { pricing: null } }, { onSuccess: onClose })}>
              {t('backToCatalogue')}
            </Button>
          )}
          <Button variant="ghost" size="sm" onClick={onClose}>
            {t('cancel')}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

function Models() {
  const t = useTranslations('operatorModels');
  const fmt = useFormat();
  const q = useOperatorModels();
  const patch = usePatchModel();
  const remove = useRemoveModel();
  const test = useTestModel();
  const [pricing, setPricing] = useState<OperatorModel | null>(null);
  if (q.isPending) return <Spinner label={t('loading')} className="size-5" />;
  if (q.isError) return <LoadError title={t('failed')} error={q.error} onRetry={q.refetch} />;
  const failed = patch.error ?? remove.error ?? test.error;
  return (
    <div className="flex flex-col gap-3">
      {failed && <Alert data-testid="models-error">{failed.message}</Alert>}
      <DataTable
        label={t('models')}
        caption={t('caption')}
        columns={[{ label: t('model') }, { label: t('engine') }, { label: t('status') }, { label: t('prices') }, { label: t('actions') }]}
      >
        {q.data.models.map((m) => (
          <tr key={m.id} className="border-t border-border align-top" data-testid="model-row" data-id={m.id} data-disabled={m.disabled} data-origin={m.origin}>
            <th scope="row" className={`${TD} text-left font-medium`}>
              {m.name}
              <span className="block text-xs font-normal text-muted-foreground">
                {m.id} · {m.type}
                {m.origin === 'operator' ? t('addedHere') : ''}
              </span>
            </th>
            <td className="max-w-64 px-3 py-2 text-xs break-words text-muted-foreground">{engineText(m, t)}</td>
            <td className="px-3 py-2 text-sm" data-testid="model-status">
              <Status m={m} />
            </td>
            <td className={`${TD} tabular-nums`}>
              {m.pricing ? t('inOut', { in: price(m.pricing.inputUsd, fmt), out: price(m.pricing.outputUsd, fmt) }) : t('ownUnits')}
              {m.pricesOverridden && <span className="block text-xs text-muted-foreground">{t('setHere')}</span>}
            </td>
            <td className="px-3 py-2">
              <div className="flex flex-wrap gap-1.5">
                <Button
                  size="sm"
                  variant="secondary"
                  pending={test.isPending && test.variables === m.id}
                  onClick={() => test.mutate(m.id)}
                  data-testid="model-test"
                >
                  {t('test')}
                </Button>
                <Button
                  size="sm"
                  variant="secondary"
                  onClick={() => patch.mutate({ id: m.id, body: { disabled: !m.disabled } })}
                  data-testid="model-toggle"
                  aria-label={t(m.disabled ? 'enableLabel' : 'disableLabel', { model: m.name })}
                >
                  {m.disabled ? t('enable') : t('disable')}
                </Button>
                {m.pricing && (
                  <Button size="sm" variant="secondary" onClick={() => setPricing(m)} data-testid="model-prices">
                    {t('pricesButton')}
                  </Button>
                )}
                {(m.origin === 'operator' || m.pricesOverridden) && (
                  <Button size="sm" variant="ghost" onClick={() => remove.mutate(m.id)} data-testid="model-remove">
                    {m.origin === 'operator' ? t('remove') : t('undo')}
                  </Button>
                )}
              </div>
            </td>
          </tr>
        ))}
      </DataTable>
      {pricing && <PricesDialog m={pricing} onClose={() => setPricing(null)} />}
    </div>
  );
}

/** The model new chats start on: the operator's choice among the served chat models, or the built-in one. */
function DefaultModel() {
  const t = useTranslations('operatorModels');
  const q = useOperatorModels();
  const set = useSetDefaultModel();
  const id = useId();
  if (!q.data) return null;
  const { models, defaultModelId, appDefaultModelId } = q.data;
  const choices = models.filter((m) => m.type === 'text' && !m.disabled);
  const effective = models.find((m) => m.id === appDefaultModelId);
  return (
    <div className="flex flex-col gap-2">
      <label htmlFor={id} className="text-sm font-medium">
        {t('startOn')}
      </label>
      <select
        id={id}
        value={defaultModelId ?? ''}
        disabled={set.isPending}
        onChange={(e) => set.mutate(e.target.value || null)}
        data-testid="default-model-select"
        className="w-full max-w-md rounded-lg border border-input bg-background px-3 py-2 text-base"
      >
        <option value="">{t('automatic')}</option>
        {choices.map((m) => (
          <option key={m.id} value={m.id}>
            {m.name}
          </option>
        ))}
        {defaultModelId && !choices.some((m) => m.id === defaultModelId) && <option value={defaultModelId}>{t('gone', { model: defaultModelId })}</option>}
      </select>
      <p className="text-sm text-muted-foreground" data-testid="default-model-effective" data-id={appDefaultModelId ?? ''}>
        {effective ? t('effective', { model: effective.name }) : t('noChatModel')}
        {defaultModelId && defaultModelId !== appDefaultModelId ? t('notServed') : ''}
      </p>
      {set.isError && <Alert>{set.error.message}</Alert>}
    </div>
  );
}

export function OperatorModelsPage() {
  const t = useTranslations('operatorModels');
  const user = useMe().data?.user;
  const operator = Boolean(user?.isAdmin && !user.wallet);
  return (
    <DashPage title={t('title')} description={t('description')} current="/operator" testId="operator-models-page">
      {!operator ? (
        <Alert tone="info" data-testid="operator-only">
          {t('only')}
        </Alert>
      ) : (
        <>
          <p className="text-sm">
            <Link href="/operator" className="font-medium text-primary underline-offset-4 hover:underline">
              {t('accountsLink')}
            </Link>
          </p>
          <Section id="operator-default-model" title={t('defaultModel')} note={t('defaultNote')}>
            <DefaultModel />
          </Section>
          <Section id="operator-models" title={t('models')}>
            <Models />
          </Section>
          <Section id="operator-add-model" title={t('addTitle')} note={t('addNote')}>
            <AddModelForm />
          </Section>
        </>
      )}
    </DashPage>
  );
}

'use client';
// The operator models page (/operator/models; the first user only): every model with its engine, health and prices;
// testing an engine, disabling and enabling a model, editing token prices, removing an added model or undoing a file
// model's changes, and adding an OpenAI-compatible upstream. Changes apply at once, with no restart, and are audited.
// data-testid: operator-models-page, model-row (data-id, data-disabled, data-origin), model-status, model-test,
// model-toggle, model-prices, model-remove, price-input, price-output, price-save, models-error, default-model-select,
// default-model-effective (plus the add form's).
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

const price = (n: number) => `$${n.toLocaleString(undefined, { maximumFractionDigits: 4 })}`;

function Status({ m }: { m: OperatorModel }) {
  if (m.disabled) return <span className="text-muted-foreground">Disabled</span>;
  if (!m.status) return <span className="text-muted-foreground">Not checked</span>;
  return m.status.ok ? (
    <span className="text-success">Working{m.status.reason ? <span className="block text-xs text-muted-foreground">{m.status.reason}</span> : null}</span>
  ) : (
    <span className="text-error">
      Down<span className="block text-xs">{m.status.reason}</span>
    </span>
  );
}

function engineText(m: OperatorModel): string {
  const e = m.engine;
  const where = e.baseUrls?.join(', ') ?? 'this server';
  const key = e.key.source === 'env' ? ` · key from ${e.key.name}` : e.key.source === 'stored' ? ' · key stored on the server' : '';
  return `${e.kind} · ${where}${e.upstreamModel ? ` · serves ${e.upstreamModel}` : ''}${key}`;
}

function PricesDialog({ m, onClose }: { m: OperatorModel; onClose: () => void }) {
  const id = useId();
  const patch = usePatchModel();
  const [input, setInput] = useState(String(m.pricing?.inputUsd ?? 0));
  const [output, setOutput] = useState(String(m.pricing?.outputUsd ?? 0));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    patch.mutate({ id: m.id, body: { pricing: { inputUsd: Number(input), outputUsd: Number(output) } } }, { onSuccess: onClose });
  };
  return (
    <Dialog open onClose={onClose} title={`Prices of ${m.name}`} description="USD per million tokens; DIEM is priced the same." testId="prices-dialog">
      <form onSubmit={submit} className="flex flex-col gap-3">
        <InputField
          id={`${id}-in`}
          label="Input"
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
          label="Output"
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
            Save prices
          </Button>
          {m.pricesOverridden && (
            <Button variant="secondary" size="sm" onClick={() => patch.mutate({ id: m.id, body: { pricing: null } }, { onSuccess: onClose })}>
              Back to the catalogue’s prices
            </Button>
          )}
          <Button variant="ghost" size="sm" onClick={onClose}>
            Cancel
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

function Models() {
  const q = useOperatorModels();
  const patch = usePatchModel();
  const remove = useRemoveModel();
  const test = useTestModel();
  const [pricing, setPricing] = useState<OperatorModel | null>(null);
  if (q.isPending) return <Spinner label="Loading the models" className="size-5" />;
  if (q.isError) return <LoadError title="Could not load the models" error={q.error} onRetry={q.refetch} />;
  const failed = patch.error ?? remove.error ?? test.error;
  return (
    <div className="flex flex-col gap-3">
      {failed && <Alert data-testid="models-error">{failed.message}</Alert>}
      <DataTable
        label="Models"
        caption="The catalogue file's models, then the ones added here"
        columns={[{ label: 'Model' }, { label: 'Engine' }, { label: 'Status' }, { label: 'Prices / 1M tokens' }, { label: 'Actions' }]}
      >
        {q.data.models.map((m) => (
          <tr key={m.id} className="border-t border-border align-top" data-testid="model-row" data-id={m.id} data-disabled={m.disabled} data-origin={m.origin}>
            <th scope="row" className={`${TD} text-left font-medium`}>
              {m.name}
              <span className="block text-xs font-normal text-muted-foreground">
                {m.id} · {m.type}
                {m.origin === 'operator' ? ' · added here' : ''}
              </span>
            </th>
            <td className="max-w-64 px-3 py-2 text-xs break-words text-muted-foreground">{engineText(m)}</td>
            <td className="px-3 py-2 text-sm" data-testid="model-status">
              <Status m={m} />
            </td>
            <td className={`${TD} tabular-nums`}>
              {m.pricing ? `${price(m.pricing.inputUsd)} in · ${price(m.pricing.outputUsd)} out` : 'Own units'}
              {m.pricesOverridden && <span className="block text-xs text-muted-foreground">set here</span>}
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
                  Test
                </Button>
                <Button
                  size="sm"
                  variant="secondary"
                  onClick={() => patch.mutate({ id: m.id, body: { disabled: !m.disabled } })}
                  data-testid="model-toggle"
                  aria-label={`${m.disabled ? 'Enable' : 'Disable'} ${m.name}`}
                >
                  {m.disabled ? 'Enable' : 'Disable'}
                </Button>
                {m.pricing && (
                  <Button size="sm" variant="secondary" onClick={() => setPricing(m)} data-testid="model-prices">
                    Prices
                  </Button>
                )}
                {(m.origin === 'operator' || m.pricesOverridden) && (
                  <Button size="sm" variant="ghost" onClick={() => remove.mutate(m.id)} data-testid="model-remove">
                    {m.origin === 'operator' ? 'Remove' : 'Undo changes'}
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
        New chats start on
      </label>
      <select
        id={id}
        value={defaultModelId ?? ''}
        disabled={set.isPending}
        onChange={(e) => set.mutate(e.target.value || null)}
        data-testid="default-model-select"
        className="w-full max-w-md rounded-lg border border-input bg-background px-3 py-2 text-base"
      >
        <option value="">Automatic (the catalogue’s default; a real model before the demo one)</option>
        {choices.map((m) => (
          <option key={m.id} value={m.id}>
            {m.name}
          </option>
        ))}
        {defaultModelId && !choices.some((m) => m.id === defaultModelId) && <option value={defaultModelId}>{defaultModelId} (disabled or removed)</option>}
      </select>
      <p className="text-sm text-muted-foreground" data-testid="default-model-effective" data-id={appDefaultModelId ?? ''}>
        {effective ? `New chats start on ${effective.name}.` : 'No chat model is served.'}
        {defaultModelId && defaultModelId !== appDefaultModelId ? ' The chosen model is not served at the moment, so the automatic choice applies.' : ''}
      </p>
      {set.isError && <Alert>{set.error.message}</Alert>}
    </div>
  );
}

export function OperatorModelsPage() {
  const user = useMe().data?.user;
  const operator = Boolean(user?.isAdmin && !user.wallet);
  return (
    <DashPage
      title="Models"
      description="The models this server serves: their engines and health, prices, and new OpenAI-compatible upstreams. Changes apply at once."
      current="/operator"
      testId="operator-models-page"
    >
      {!operator ? (
        <Alert tone="info" data-testid="operator-only">
          This page is for the server’s operator (its first user).
        </Alert>
      ) : (
        <>
          <p className="text-sm">
            <Link href="/operator" className="font-medium text-primary underline-offset-4 hover:underline">
              Accounts and the audit log
            </Link>
          </p>
          <Section id="operator-default-model" title="Default model" note="The model a new chat starts on, unless its character names one.">
            <DefaultModel />
          </Section>
          <Section id="operator-models" title="Models">
            <Models />
          </Section>
          <Section id="operator-add-model" title="Add an OpenAI-compatible upstream" note="vLLM, SGLang, Ollama, llama.cpp’s server, or a hosted API.">
            <AddModelForm />
          </Section>
        </>
      )}
    </DashPage>
  );
}

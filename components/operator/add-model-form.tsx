'use client';
// Adding an OpenAI-compatible upstream (vLLM, SGLang, Ollama, llama.cpp's server, a hosted API): its base URL
// (`http://host:8000` gets `/v1`), the model id it serves, its key (the name of an environment variable on the
// server, or the key itself, stored on the server and never shown again), and prices. "Test" checks the upstream's
// /models before anything is added.
// data-testid: add-model-form, add-model-id, add-model-url, add-model-upstream, add-model-key-env, add-model-key,
// add-model-input-price, add-model-output-price, add-model-test, add-model-test-result, add-model-submit,
// add-model-error, add-model-done.
import { useTranslations } from 'use-intl';
import { type FormEvent, useId, useState } from 'react';
import { useAddModel, useTestEngine } from '@/components/operator/model-queries.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { InputField } from '@/components/ui/fields.tsx';
import type { EngineTestResult, OperatorModelInput } from '@/lib/wire.ts';

/** Examples in the fields: an address, a model id and a variable name, the same in every language. */
const EXAMPLE_URL = 'http://localhost:8000/v1';
const EXAMPLE_UPSTREAM = 'Qwen/Qwen3-8B';
const EXAMPLE_ENV = 'OPENAI_API_KEY';

function TestResult({ r }: { r: EngineTestResult }) {
  const t = useTranslations('addModel');
  return (
    <p role="status" className={`text-sm ${r.ok ? 'text-success' : 'text-error'}`} data-testid="add-model-test-result" data-ok={r.ok}>
      {r.ok ? `${t('answers')}${r.reason ? ` ${r.reason}` : ''}` : t('broken', { reason: r.reason ?? '' })}
    </p>
  );
}

export function AddModelForm() {
  const t = useTranslations('addModel');
  const id = useId();
  const [f, setF] = useState({ id: '', name: '', baseUrl: '', upstreamModel: '', keyEnv: '', key: '', input: '0', output: '0', context: '32768' });
  const add = useAddModel();
  const test = useTestEngine();
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => {
    setF({ ...f, [k]: e.target.value });
    add.reset();
    test.reset();
  };
  const upstream = () => ({
    baseUrl: f.baseUrl.trim(),
    ...(f.upstreamModel.trim() ? { upstreamModel: f.upstreamModel.trim() } : {}),
    ...(f.key.trim() ? { apiKey: f.key.trim() } : f.keyEnv.trim() ? { apiKeyEnv: f.keyEnv.trim() } : {}),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body: OperatorModelInput = {
      id: f.id.trim(),
      ...(f.name.trim() ? { name: f.name.trim() } : {}),
      ...upstream(),
      contextLength: Number(f.context),
      pricing: { inputUsd: Number(f.input), outputUsd: Number(f.output) },
    };
    add.mutate(body, { onSuccess: () => setF({ ...f, id: '', name: '', upstreamModel: '', key: '' }) });
  };
  return (
    <form onSubmit={submit} className="flex flex-col gap-3" data-testid="add-model-form">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <InputField id={`${id}-id`} label={t('id')} required value={f.id} onChange={set('id')} data-testid="add-model-id" />
        <InputField id={`${id}-name`} label={t('name')} value={f.name} onChange={set('name')} />
        <InputField
          id={`${id}-url`}
          label={t('url')}
          required
          placeholder={EXAMPLE_URL}
          value={f.baseUrl}
          onChange={set('baseUrl')}
          hint={t('urlHint')}
          data-testid="add-model-url"
        />
        <InputField
          id={`${id}-up`}
          label={t('upstream')}
          placeholder={t('upstreamPlaceholder', { example: EXAMPLE_UPSTREAM })}
          value={f.upstreamModel}
          onChange={set('upstreamModel')}
          hint={t('upstreamHint')}
          data-testid="add-model-upstream"
        />
        <InputField
          id={`${id}-env`}
          label={t('keyEnv')}
          placeholder={EXAMPLE_ENV}
          value={f.keyEnv}
          onChange={set('keyEnv')}
          hint={t('keyEnvHint')}
          data-testid="add-model-key-env"
        />
        <InputField
          id={`${id}-key`}
          label={t('key')}
          type="password"
          autoComplete="off"
          value={f.key}
          onChange={set('key')}
          hint={t('keyHint')}
          data-testid="add-model-key"
        />
        <InputField
          id={`${id}-in`}
          label={t('inputPrice')}
          type="number"
          min={0}
          step="any"
          required
          value={f.input}
          onChange={set('input')}
          data-testid="add-model-input-price"
        />
        <InputField
          id={`${id}-out`}
          label={t('outputPrice')}
          type="number"
          min={0}
          step="any"
          required
          value={f.output}
          onChange={set('output')}
          data-testid="add-model-output-price"
        />
        <InputField id={`${id}-ctx`} label={t('context')} type="number" min={256} step={1} required value={f.context} onChange={set('context')} />
      </div>
      {test.data && <TestResult r={test.data} />}
      {(add.isError || test.isError) && <Alert data-testid="add-model-error">{(add.error ?? test.error)?.message}</Alert>}
      {add.isSuccess && (
        <p role="status" className="text-sm text-success" data-testid="add-model-done">
          {t('added', { model: add.data.model.name })}
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <Button
          variant="secondary"
          size="sm"
          pending={test.isPending}
          disabled={!f.baseUrl.trim()}
          onClick={() => test.mutate(upstream())}
          data-testid="add-model-test"
        >
          {t('test')}
        </Button>
        <Button type="submit" size="sm" pending={add.isPending} data-testid="add-model-submit">
          {t('add')}
        </Button>
      </div>
    </form>
  );
}

'use client';
// Adding an OpenAI-compatible upstream (vLLM, SGLang, Ollama, llama.cpp's server, a hosted API): its base URL
// (`http://host:8000` gets `/v1`), the model id it serves, its key (the name of an environment variable on the
// server, or the key itself, stored on the server and never shown again), and prices. "Test" checks the upstream's
// /models before anything is added.
// data-testid: add-model-form, add-model-id, add-model-url, add-model-upstream, add-model-key-env, add-model-key,
// add-model-input-price, add-model-output-price, add-model-test, add-model-test-result, add-model-submit,
// add-model-error, add-model-done.
import { type FormEvent, useId, useState } from 'react';
import { useAddModel, useTestEngine } from '@/components/operator/model-queries.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { InputField } from '@/components/ui/fields.tsx';
import type { EngineTestResult, OperatorModelInput } from '@/lib/wire.ts';

function TestResult({ r }: { r: EngineTestResult }) {
  return (
    <p role="status" className={`text-sm ${r.ok ? 'text-success' : 'text-error'}`} data-testid="add-model-test-result" data-ok={r.ok}>
      {r.ok ? `The upstream answers.${r.reason ? ` ${r.reason}` : ''}` : `The upstream does not work: ${r.reason}`}
    </p>
  );
}

export function AddModelForm() {
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
        <InputField id={`${id}-id`} label="Model id (as clients will ask for it)" required value={f.id} onChange={set('id')} data-testid="add-model-id" />
        <InputField id={`${id}-name`} label="Display name (optional)" value={f.name} onChange={set('name')} />
        <InputField
          id={`${id}-url`}
          label="Base URL"
          required
          placeholder="http://localhost:8000/v1"
          value={f.baseUrl}
          onChange={set('baseUrl')}
          hint="The OpenAI-compatible API; a bare host and port gets /v1."
          data-testid="add-model-url"
        />
        <InputField
          id={`${id}-up`}
          label="Upstream model id (optional)"
          placeholder="e.g. Qwen/Qwen3-8B"
          value={f.upstreamModel}
          onChange={set('upstreamModel')}
          hint="The name the upstream serves it under, when it differs."
          data-testid="add-model-upstream"
        />
        <InputField
          id={`${id}-env`}
          label="API key: environment variable (optional)"
          placeholder="OPENAI_API_KEY"
          value={f.keyEnv}
          onChange={set('keyEnv')}
          hint="Set on this server; its value is never shown."
          data-testid="add-model-key-env"
        />
        <InputField
          id={`${id}-key`}
          label="…or the API key itself (optional)"
          type="password"
          autoComplete="off"
          value={f.key}
          onChange={set('key')}
          hint="Stored on the server, used only for this upstream, never sent back."
          data-testid="add-model-key"
        />
        <InputField
          id={`${id}-in`}
          label="Input price, USD per 1M tokens"
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
          label="Output price, USD per 1M tokens"
          type="number"
          min={0}
          step="any"
          required
          value={f.output}
          onChange={set('output')}
          data-testid="add-model-output-price"
        />
        <InputField id={`${id}-ctx`} label="Context length (tokens)" type="number" min={256} step={1} required value={f.context} onChange={set('context')} />
      </div>
      {test.data && <TestResult r={test.data} />}
      {(add.isError || test.isError) && <Alert data-testid="add-model-error">{(add.error ?? test.error)?.message}</Alert>}
      {add.isSuccess && (
        <p role="status" className="text-sm text-success" data-testid="add-model-done">
          Added {add.data.model.name}: it is in every model list now.
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
          Test the upstream
        </Button>
        <Button type="submit" size="sm" pending={add.isPending} data-testid="add-model-submit">
          Add the model
        </Button>
      </div>
    </form>
  );
}

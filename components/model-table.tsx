'use client';
// The model catalogue as a table, read from the public GET /api/v1/models.
import { useEffect, useState } from 'react';

interface ModelRecord {
  id: string;
  type: string;
  model_spec: { name: string; tier: string; pricing?: { input: { usd: number }; output: { usd: number } } };
}

export function ModelTable() {
  const [models, setModels] = useState<ModelRecord[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    fetch('/api/v1/models')
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then((j: { data: ModelRecord[] }) => setModels(j.data))
      .catch((e: Error) => setError(e.message));
  }, []);
  if (error) return <p role="alert">Could not load the models: {error}</p>;
  if (!models) return <p className="muted">Loading models…</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Model</th>
          <th scope="col">Type</th>
          <th scope="col">Tier</th>
          <th scope="col">Input / output (USD per 1M tokens)</th>
        </tr>
      </thead>
      <tbody>
        {models.map((m) => (
          <tr key={m.id}>
            <td>
              <code>{m.id}</code> — {m.model_spec.name}
            </td>
            <td>{m.type}</td>
            <td>{m.model_spec.tier}</td>
            <td>{m.model_spec.pricing ? `${m.model_spec.pricing.input.usd} / ${m.model_spec.pricing.output.usd}` : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

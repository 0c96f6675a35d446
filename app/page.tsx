// Landing page: what this server serves and how to call it. The chat app replaces it as the product's front door.
import { loadConfig } from '@/lib/config.ts';
import { DEFAULT_CATALOGUE, loadCatalogue } from '@/lib/models/catalogue.ts';

export const dynamic = 'force-dynamic';

export default function Home() {
  const config = loadConfig();
  const catalogue = loadCatalogue(config.modelsFile ?? DEFAULT_CATALOGUE);
  return (
    <main>
      <h1>Lagoon</h1>
      <p className="muted">A self-hosted inference service. The OpenAI-compatible API is served at <code>/api/v1</code>.</p>
      <h2>Models</h2>
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
          {catalogue.models.map((m) => (
            <tr key={m.id}>
              <td>
                <code>{m.id}</code> — {m.name}
              </td>
              <td>{m.type}</td>
              <td>{m.tier}</td>
              <td>
                {m.pricing.input_usd} / {m.pricing.output_usd}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Try it</h2>
      <pre>
        <code>{`curl http://localhost:3000/api/v1/chat/completions \\
  -H "Authorization: Bearer $LAGOON_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "default", "messages": [{"role": "user", "content": "Hello"}]}'`}</code>
      </pre>
    </main>
  );
}

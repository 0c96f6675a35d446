// Landing page: what this server serves and how to call it. The chat app replaces it as the product's front door.
import { ModelTable } from '@/components/model-table';

export default function Home() {
  return (
    <main>
      <h1>Lagoon</h1>
      <p className="muted">
        A self-hosted inference service. The OpenAI-compatible API is served at <code>/api/v1</code>.
      </p>
      <h2>Models</h2>
      <ModelTable />
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

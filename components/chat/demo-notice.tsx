// The demo model talks nonsense by design (random weights, so the whole system runs offline). Said where the model
// is picked and in an empty chat, with the way to a real model: the README's recipe, and for the operator, the
// models page where one is added in the browser.
import Link from 'next/link';
import type { AppModel } from '@/lib/wire.ts';

export const DEMO_HEADLINE = 'Demo model: its answers are meaningless words.';

export function DemoNotice({ model, isAdmin, compact = false }: { model: AppModel; isAdmin: boolean; compact?: boolean }) {
  if (!model.demo) return null;
  const link = 'font-medium text-primary underline underline-offset-4';
  return (
    <div
      role="note"
      data-testid={compact ? 'demo-notice-picker' : 'demo-notice'}
      className={`rounded-lg border border-primary/40 bg-primary/5 text-left text-foreground ${compact ? 'mt-1.5 px-2 py-1.5 text-xs' : 'px-3 py-2.5 text-sm'}`}
    >
      <p className="font-medium">{DEMO_HEADLINE}</p>
      {!compact && model.description && <p className="mt-1 text-muted-foreground">{model.description}</p>}
      <p className="mt-1">
        For real answers, connect a real model: an OpenAI-compatible server (vLLM, SGLang, Ollama, llama.cpp) or a GGUF file, as the README’s “Connecting a real
        model” explains (<code className="rounded bg-muted px-1">npx lagoon model add</code>).{' '}
        {isAdmin ? (
          <Link href="/operator/models" className={link} data-testid="demo-notice-operator-link">
            Add a model in the browser
          </Link>
        ) : (
          'Ask this server’s operator to add one.'
        )}
      </p>
    </div>
  );
}

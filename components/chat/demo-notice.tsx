// The demo model talks nonsense by design (random weights, so the whole system runs offline). Said where the model
// is picked (the headline only) and in an empty chat, with the way to a real model: for the operator, the README's
// recipe and the models page where one is added in the browser; for everyone else, another model or the operator.
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
      {/* In the picker the headline is enough; the way out is said once, in the empty chat. */}
      {/* The catalogue's description is written for the operator (it repeats the warning and points at the README). */}
      {!compact && isAdmin && model.description && <p className="mt-1 text-muted-foreground">{model.description}</p>}
      {!compact &&
        (isAdmin ? (
          // The operator connects models: the README's recipe and the models page are theirs.
          <p className="mt-1">
            For real answers, connect a real model: an OpenAI-compatible server (vLLM, SGLang, Ollama, llama.cpp) or a GGUF file, as the README’s “Connecting a
            real model” explains (<code className="rounded bg-muted px-1">npx lagoon model add</code>).{' '}
            <Link href="/operator/models" className={link} data-testid="demo-notice-operator-link">
              Add a model in the browser
            </Link>
          </p>
        ) : (
          <p className="mt-1">For real answers, pick another model above if there is one, or ask this server’s operator to add one.</p>
        ))}
    </div>
  );
}

// The server-side tool calls of an answer, each collapsible: the tool and where it ran, how long it took, and,
// opened, the arguments the model wrote and what came back. Tool output is untrusted text: shown as plain text only.
import { useTranslations } from 'use-intl';
import { memo } from 'react';
import type { AppToolStep } from '@/lib/wire.ts';
import { Spinner } from '@/components/ui/spinner.tsx';

function pretty(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

const duration = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

function ToolStepRow({ step }: { step: AppToolStep }) {
  const t = useTranslations('chat.tools');
  const running = step.status === 'running';
  const failed = step.status === 'error';
  return (
    <details data-testid="tool-step" data-status={step.status} data-tool={step.name} className="group rounded-lg border border-border bg-muted/50 text-sm">
      <summary className="flex cursor-pointer list-none items-center gap-2 rounded-lg px-3 py-2 text-muted-foreground select-none hover:text-foreground [&::-webkit-details-marker]:hidden">
        {running ? (
          <Spinner className="size-3.5" />
        ) : (
          <span aria-hidden="true" className="inline-block transition-transform group-open:rotate-90">
            ›
          </span>
        )}
        <span className="font-medium">{running ? t('calling') : failed ? t('failed') : t('called')}</span>
        <code className="truncate font-mono text-xs text-foreground">{step.name}</code>
        {step.server && <span className="truncate text-xs">{t('on', { server: step.server })}</span>}
        {step.ms !== null && <span className="ml-auto shrink-0 text-xs tabular-nums">{duration(step.ms)}</span>}
      </summary>
      <div className="space-y-2 border-t border-border px-3 py-2">
        {step.arguments && (
          <div>
            <div className="mb-1 text-xs font-medium text-muted-foreground">{t('arguments')}</div>
            <pre data-testid="tool-arguments" className="max-h-60 overflow-auto rounded bg-background p-2 font-mono text-xs whitespace-pre-wrap break-words">
              {pretty(step.arguments)}
            </pre>
          </div>
        )}
        {!running && (
          <div>
            <div className="mb-1 text-xs font-medium text-muted-foreground">{failed ? t('error') : t('result')}</div>
            <pre
              data-testid="tool-result"
              className={`max-h-80 overflow-auto rounded bg-background p-2 font-mono text-xs whitespace-pre-wrap break-words ${failed ? 'text-destructive' : ''}`}
            >
              {step.result || t('empty')}
            </pre>
            {step.truncated && <p className="mt-1 text-xs text-muted-foreground">{t('truncated')}</p>}
          </div>
        )}
      </div>
    </details>
  );
}

export const ToolSteps = memo(function ToolSteps({ steps }: { steps: AppToolStep[] }) {
  if (!steps.length) return null;
  return (
    <div data-testid="tool-steps" className="mb-3 space-y-1.5">
      {steps.map((s) => (
        <ToolStepRow key={`${s.round}:${s.id}`} step={s} />
      ))}
    </div>
  );
});

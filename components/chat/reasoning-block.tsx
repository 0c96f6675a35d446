// The model's reasoning, collapsible: open while it is being written, folded once the answer starts (unless the
// reader opened or closed it themselves). Shown as plain text, which is also the cheapest to stream.
import { useTranslations } from 'use-intl';
import { useState, type SyntheticEvent } from 'react';
import { Spinner } from '@/components/ui/spinner.tsx';

interface Props {
  text: string;
  /** Reasoning is still arriving (the answer proper has not started). */
  thinking: boolean;
  /** Seconds spent thinking, when this client watched it happen. */
  seconds?: number;
}

export function ReasoningBlock({ text, thinking, seconds }: Props) {
  const t = useTranslations('chat.reasoning');
  const [userOpen, setUserOpen] = useState<boolean | null>(null);
  const open = userOpen ?? thinking;
  const onToggle = (e: SyntheticEvent<HTMLDetailsElement>) => {
    // The toggle event also fires when `open` changes from props; only a change we did not render is the reader's.
    if (e.currentTarget.open !== open) setUserOpen(e.currentTarget.open);
  };
  const label = thinking ? t('thinking') : seconds !== undefined ? t('thought', { seconds: Math.max(1, Math.round(seconds)) }) : t('label');
  return (
    <details data-testid="reasoning" open={open} onToggle={onToggle} className="group mb-3 rounded-lg border border-border bg-muted/50 text-sm">
      <summary className="flex cursor-pointer list-none items-center gap-2 rounded-lg px-3 py-2 font-medium text-muted-foreground select-none hover:text-foreground [&::-webkit-details-marker]:hidden">
        {thinking ? (
          <Spinner className="size-3.5" />
        ) : (
          <span aria-hidden="true" className="inline-block transition-transform group-open:rotate-90">
            ›
          </span>
        )}
        {label}
      </summary>
      <div className="max-h-80 overflow-y-auto border-t border-border px-3 py-2 whitespace-pre-wrap text-muted-foreground">{text}</div>
    </details>
  );
}

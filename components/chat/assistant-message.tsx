// One answer: reasoning, the markdown body (live text from the stream store while generating, so only this row
// re-renders per frame), sources, error, and a footer with copy, regenerate, versions, model, usage and cost.
import { useTranslations } from 'use-intl';
import { memo, useContext, useDeferredValue } from 'react';
import type { AppMessage } from '@/lib/wire.ts';
import { BranchNav } from './branch-nav.tsx';
import { ModelNamesContext, useChatActions } from './chat-context.ts';
import { CopyButton } from './copy-button.tsx';
import { ReadAloudButton } from '@/components/audio/read-aloud-button.tsx';
import { ErrorBanner } from './error-banner.tsx';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { RegenerateIcon } from './icons.tsx';
import { thoughtSeconds, useLiveAnswer } from './live-store.ts';
import { Markdown } from './markdown.tsx';
import { ReasoningBlock } from './reasoning-block.tsx';
import { SourcesPanel } from './sources-panel.tsx';
import { ToolSteps } from './tool-steps.tsx';
import { TypingDots } from './typing-dots.tsx';
import { UsageLabel } from './usage-label.tsx';
import { RememberButton } from '@/components/memory/remember-button.tsx';
import { UsedMemories } from '@/components/memory/used-memories.tsx';

interface Props {
  message: AppMessage;
  siblingIndex: number;
  siblingCount: number;
  /** Another answer in this chat is being generated: no regenerating meanwhile. */
  busy: boolean;
}

export const AssistantMessage = memo(function AssistantMessage({ message, siblingIndex, siblingCount, busy }: Props) {
  const t = useTranslations('chat.message');
  const live = useLiveAnswer(message.id);
  const actions = useChatActions();
  const modelName = useContext(ModelNamesContext).get(message.modelId ?? '');
  // The markdown re-renders at transition priority: React renders it in slices between frames and skips versions
  // a newer token has already replaced, so a long answer never blocks the page while it streams.
  const content = useDeferredValue(live?.content ?? message.content);
  const reasoning = live?.reasoning ?? message.reasoning ?? '';
  const citations = live?.citations ?? message.citations;
  const toolSteps = live?.toolSteps ?? message.toolSteps ?? [];
  const status = live?.status ?? message.status;
  const generating = status === 'streaming';
  return (
    <article data-testid="message" data-role="assistant" data-status={status} aria-label={t('assistant')} className="min-w-0">
      {message.memories && message.memories.length > 0 && <UsedMemories memories={message.memories} />}
      {reasoning && <ReasoningBlock text={reasoning} thinking={generating && !content} seconds={thoughtSeconds(message.id, live)} />}
      <ToolSteps steps={toolSteps} />
      {content ? (
        <Markdown text={content} citations={citations} live={generating} />
      ) : (
        generating && !reasoning && !toolSteps.some((s) => s.status === 'running') && <TypingDots />
      )}
      {live?.reconnecting && <p className="mt-2 text-xs text-muted-foreground">{t('reconnecting')}</p>}
      {status === 'stopped' && <p className="mt-2 text-xs text-muted-foreground italic">{t('stopped')}</p>}
      {message.error && status === 'error' && (
        <ErrorBanner
          error={message.error}
          since={message.createdAt}
          modelId={message.modelId}
          onRetry={busy ? undefined : () => actions.regenerate(message.id)}
        />
      )}
      <SourcesPanel citations={citations} />
      {!generating && (
        <div className="mt-1 flex min-h-8 flex-wrap items-center gap-x-1 gap-y-1 text-muted-foreground">
          {content && <CopyButton text={content} />}
          {content && <ReadAloudButton id={message.id} text={content} />}
          {content && <RememberButton messageId={message.id} text={content} />}
          <IconButton size="sm" label={t('regenerate')} data-testid="regenerate-button" disabled={busy} onClick={() => actions.regenerate(message.id)}>
            <RegenerateIcon />
          </IconButton>
          <BranchNav index={siblingIndex} count={siblingCount} onStep={(s) => actions.switchSibling(message.id, s)} />
          {modelName && <span className="ml-1 truncate text-xs">{modelName}</span>}
          {message.usage && (
            <>
              <span aria-hidden="true" className="text-xs">
                ·
              </span>
              <UsageLabel usage={message.usage} />
            </>
          )}
        </div>
      )}
    </article>
  );
});

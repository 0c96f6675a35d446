'use client';
// The editor's live preview: a short chat with the unsaved draft (POST /characters/preview). Each turn is a real,
// billed completion on the user's account, but nothing is stored; "Start over" forgets the exchange. Text only: the
// replies are shown as plain text, never as markup.
// data-testid: preview-chat, preview-message (data-role), preview-input, preview-send, preview-reset, preview-error.
import { useTranslations } from 'use-intl';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { cn } from '@/components/ui/cn.ts';
import type { CharacterInput, PreviewMessage } from '@/components/characters/types.ts';

type PreviewDraft = Pick<CharacterInput, 'instructions' | 'firstMessage' | 'exampleDialogue' | 'modelId' | 'temperature'> & { name?: string };

function Bubble({ from, children }: { from: PreviewMessage['role']; children: string }) {
  const t = useTranslations('characters');
  return (
    <li
      data-testid="preview-message"
      data-role={from}
      className={cn(
        'max-w-[85%] rounded-xl px-3 py-2 text-sm whitespace-pre-wrap break-words',
        from === 'user' ? 'self-end bg-primary text-primary-foreground' : 'self-start bg-muted text-foreground',
      )}
    >
      <span className="sr-only">{from === 'user' ? t('you') : t('character')}</span>
      {children}
    </li>
  );
}

export function PreviewChat({ draft, name }: { draft: PreviewDraft; name: string }) {
  const t = useTranslations('characters');
  const [messages, setMessages] = useState<PreviewMessage[]>([]);
  const [text, setText] = useState('');
  const end = useRef<HTMLLIElement>(null);
  const send = useMutation({
    mutationFn: (history: PreviewMessage[]) => call('POST /characters/preview', { body: { draft, messages: history } }),
    onSuccess: ({ reply }, history) => setMessages([...history, { role: 'assistant', content: reply }]),
    // Give the unanswered message back to the input, so a retry does not leave two user turns in a row.
    onError: (_e, history) => {
      setMessages(history.slice(0, -1));
      setText(history.at(-1)?.content ?? '');
    },
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: the point is to run when the log grows
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'nearest' });
  }, [messages, send.isPending]);

  const submit = () => {
    const content = text.trim();
    if (!content || send.isPending) return;
    const history: PreviewMessage[] = [...messages, { role: 'user', content }];
    setMessages(history);
    setText('');
    send.mutate(history);
  };
  const reset = () => {
    send.reset();
    setMessages([]);
  };

  return (
    <section aria-labelledby="preview-title" className="flex min-h-96 flex-col gap-3 rounded-xl border border-border bg-card p-4" data-testid="preview-chat">
      <div className="flex items-center justify-between gap-2">
        <h2 id="preview-title" className="text-base font-semibold">
          {name ? t.rich('preview', { name, b: (words) => <span className="break-all">{words}</span> }) : t('previewUnnamed')}
        </h2>
        <Button size="sm" variant="ghost" onClick={reset} disabled={!messages.length} data-testid="preview-reset">
          {t('startOver')}
        </Button>
      </div>
      <p className="text-xs text-muted-foreground">{t('previewNote')}</p>
      <ol role="log" aria-label={t('previewLog')} className="flex max-h-[28rem] min-h-40 flex-1 flex-col gap-2 overflow-y-auto">
        {draft.firstMessage && <Bubble from="assistant">{draft.firstMessage}</Bubble>}
        {messages.map((m, i) => (
          // The exchange only grows or is cleared, so the position is a stable key.
          <Bubble key={i} from={m.role}>
            {m.content}
          </Bubble>
        ))}
        {send.isPending && (
          <li className="self-start text-sm text-muted-foreground" aria-live="polite">
            {t('writing')}
          </li>
        )}
        <li ref={end} aria-hidden="true" />
      </ol>
      {send.isError && (
        <Alert title={t('previewFailed')} data-testid="preview-error">
          {send.error.message}
        </Alert>
      )}
      <form
        className="flex gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <label htmlFor="preview-input" className="sr-only">
          {t('messageTo')}
        </label>
        <input
          id="preview-input"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder={t('saySomething')}
          className="h-10 min-w-0 flex-1 rounded-lg border border-input bg-background px-3 text-foreground placeholder:text-muted-foreground focus-visible:border-ring"
          data-testid="preview-input"
        />
        <Button type="submit" pending={send.isPending} disabled={!text.trim()} data-testid="preview-send">
          {t('send')}
        </Button>
      </form>
    </section>
  );
}

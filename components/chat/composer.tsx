'use client';
// The message box: autosizing textarea (16 px, so phones do not zoom), Enter sends, Shift+Enter breaks the line,
// Esc stops a running answer; `/` at the start opens the prompt library (components/prompts/slash-menu.ts) as a
// listbox the box controls (arrows, Enter or Tab inserts, Esc closes); attachments by picker (or by dropping onto the chat), shown as removable chips,
// with the limits stated up front. While an answer is generated the send button becomes Stop.
import { useTranslations } from 'use-intl';
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import type { AttachmentLimits } from '@/lib/wire.ts';
import { AttachmentChip } from './attachment-chip.tsx';
import { describeLimits } from './attachment-rules.ts';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { ArrowUpIcon, PaperclipIcon, StopIcon, XIcon } from './icons.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import type { Attachments } from './use-attachments.ts';
import { DictationButton } from '@/components/audio/dictation-button.tsx';
import { usePrompts } from '@/components/prompts/queries.ts';
import { filterPrompts, firstPlaceholder, slashQuery } from '@/components/prompts/slash-menu.ts';

interface Props {
  attachments: Attachments;
  limits: AttachmentLimits | undefined;
  generating: boolean;
  stopping: boolean;
  /** Why sending is not possible right now (e.g. an image for a model without vision), shown under the box. */
  blocked?: string;
  onSend: (text: string) => Promise<boolean>;
  onStop: () => void;
  /** Why files cannot be attached in this mode (the image mode makes pictures from words), or undefined. */
  attachBlocked?: string;
  /** More controls beside the attach button (the image mode's switch), and the box's placeholder for that mode. */
  tools?: ReactNode;
  placeholder?: string;
}

export function Composer({ attachments, limits, generating, stopping, blocked, attachBlocked, onSend, onStop, tools, placeholder }: Props) {
  const t = useTranslations('chat.composer');
  const tAttach = useTranslations('attachments');
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const hintId = useId();
  const menuId = useId();
  const [active, setActive] = useState(0);
  // The query the menu was closed at with Escape: it stays closed until the text stops asking for it.
  const [dismissed, setDismissed] = useState<string | null>(null);
  const query = slashQuery(text);
  const asking = query !== null && dismissed === null;
  const prompts = usePrompts(query !== null);
  const matches = asking && prompts.data ? filterPrompts(prompts.data.items, query) : [];
  const menuOpen = asking && !!prompts.data;
  const pendingSelection = useRef<{ start: number; end: number } | null>(null);
  const canSend = text.trim().length > 0 && !sending && !generating && !blocked;

  useEffect(() => {
    if (query === null) setDismissed(null);
  }, [query]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the first match is active whenever the filter changes
  useEffect(() => setActive(0), [query]);

  const insert = (content: string) => {
    const at = firstPlaceholder(content);
    pendingSelection.current = at ?? { start: content.length, end: content.length };
    setText(content);
    setDismissed(null);
    inputRef.current?.focus();
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: an inserted prompt's selection is set once its text is in the box
  useEffect(() => {
    const sel = pendingSelection.current;
    if (!sel || !inputRef.current) return;
    pendingSelection.current = null;
    inputRef.current.setSelectionRange(sel.start, sel.end);
  }, [text]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the textarea is resized whenever its text changes
  useEffect(() => {
    const el = inputRef.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 240)}px`;
  }, [text]);

  useEffect(() => {
    // Focus the box on desktop; on touch screens that would pop the keyboard over the chat.
    if (window.matchMedia('(pointer: fine)').matches) inputRef.current?.focus();
  }, []);

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!canSend) return;
    const sent = text;
    setSending(true);
    setText('');
    // A failed send stays in the transcript with its retry, so the text is not lost by clearing the box now.
    await onSend(sent);
    setSending(false);
    inputRef.current?.focus();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (menuOpen && !e.nativeEvent.isComposing) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        if (matches.length) setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : matches.length - 1)) % matches.length);
        return;
      }
      if ((e.key === 'Enter' || e.key === 'Tab') && !e.shiftKey && matches[active]) {
        e.preventDefault();
        insert(matches[active].content);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        setDismissed(query);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    } else if (e.key === 'Escape' && generating) {
      e.preventDefault();
      onStop();
    }
  };

  const limitsText = limits ? describeLimits(limits, tAttach) : '';
  return (
    <form onSubmit={submit} className="shrink-0 px-3 pt-1 pb-[max(0.75rem,env(safe-area-inset-bottom))] sm:px-6" aria-label={t('form')}>
      <div className="mx-auto w-full max-w-3xl">
        {attachments.errors.length > 0 && (
          <div role="alert" className="mb-2 flex items-start gap-2 rounded-lg border border-error/40 bg-error/5 px-3 py-2 text-sm text-foreground">
            <ul className="min-w-0 flex-1 space-y-0.5 break-words">
              {attachments.errors.map((m, i) => (
                <li key={i}>{m}</li>
              ))}
            </ul>
            <IconButton size="sm" label={t('dismiss')} onClick={attachments.dismissErrors}>
              <XIcon className="size-3.5" />
            </IconButton>
          </div>
        )}
        <div className="relative rounded-2xl border border-border bg-background shadow-sm focus-within:border-ring">
          {menuOpen && (
            <div className="absolute right-0 bottom-full left-0 z-30 mb-2 overflow-hidden rounded-xl border border-border bg-background shadow-lg">
              <ul id={menuId} role="listbox" aria-label={t('savedPrompts')} data-testid="prompt-menu" className="max-h-72 overflow-y-auto p-1">
                {matches.map((p, i) => (
                  <li
                    key={p.id}
                    id={`${menuId}-${i}`}
                    role="option"
                    aria-selected={i === active}
                    data-testid="prompt-option"
                    // mousedown, not click: the box keeps its focus.
                    onMouseDown={(e) => {
                      e.preventDefault();
                      insert(p.content);
                    }}
                    onMouseEnter={() => setActive(i)}
                    className={`cursor-pointer rounded-lg px-3 py-2 text-sm ${i === active ? 'bg-accent text-foreground' : 'text-foreground'}`}
                  >
                    <span className="flex items-center gap-2 font-medium">
                      {p.title}
                      {p.shared && <span className="rounded bg-muted px-1 text-xs font-normal text-muted-foreground">{t('shared')}</span>}
                    </span>
                    <span className="block truncate text-xs text-muted-foreground">{p.content}</span>
                  </li>
                ))}
              </ul>
              {matches.length === 0 && (
                <p className="px-3 py-2 text-sm text-muted-foreground" data-testid="prompt-menu-empty">
                  {prompts.data?.items.length ? t('noMatch') : t('noPrompts')}
                </p>
              )}
            </div>
          )}
          {attachments.items.length > 0 && (
            <ul aria-label={t('attached')} className="flex flex-wrap gap-2 px-2 pt-2">
              {attachments.items.map((a) => (
                <AttachmentChip key={a.id} name={a.name} size={a.size} kind={a.kind} previewUrl={a.previewUrl} onRemove={() => attachments.remove(a.id)} />
              ))}
            </ul>
          )}
          <textarea
            ref={inputRef}
            data-testid="composer-input"
            aria-label={t('message')}
            aria-describedby={hintId}
            aria-autocomplete="list"
            aria-controls={menuOpen ? menuId : undefined}
            aria-activedescendant={menuOpen && matches[active] ? `${menuId}-${active}` : undefined}
            placeholder={placeholder ?? t('placeholder')}
            rows={1}
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={onKeyDown}
            onPaste={(e) => {
              const files = Array.from(e.clipboardData.files);
              if (files.length && !attachBlocked) {
                e.preventDefault();
                attachments.add(files);
              }
            }}
            className="block max-h-60 w-full resize-none bg-transparent px-4 pt-3 pb-1 text-base text-foreground outline-none placeholder:text-muted-foreground"
          />
          <div className="flex items-center justify-between px-2 pb-2">
            <div className="flex items-center gap-1">
              <IconButton
                size="sm"
                label={attachBlocked ? t('attachBlocked', { why: attachBlocked }) : t('attach')}
                data-testid="attach-button"
                title={attachBlocked || limitsText || t('attach')}
                onClick={() => fileRef.current?.click()}
                disabled={!limits || !!attachBlocked}
              >
                <PaperclipIcon />
              </IconButton>
              <DictationButton
                disabled={sending}
                onText={(said) => {
                  // Dictated words join what is already in the box, to edit before sending.
                  setText((cur) => (cur.trim() ? `${cur.replace(/\s+$/, '')} ${said}` : said));
                  inputRef.current?.focus();
                }}
              />
              {tools}
            </div>
            <input
              ref={fileRef}
              type="file"
              multiple
              hidden
              accept={limits?.accept}
              onChange={(e) => {
                attachments.add(Array.from(e.target.files ?? []));
                e.target.value = '';
              }}
            />
            {generating ? (
              <button
                type="button"
                data-testid="stop-button"
                onClick={onStop}
                disabled={stopping}
                aria-label={t('stop')}
                title={t('stopTitle')}
                className={`inline-flex h-9 w-9 items-center justify-center rounded-full bg-foreground text-background hover:opacity-90 disabled:opacity-60`}
              >
                {stopping ? <Spinner className="size-4" /> : <StopIcon />}
              </button>
            ) : (
              <button
                type="submit"
                data-testid="send-button"
                disabled={!canSend}
                aria-label={t('send')}
                title={t('sendTitle')}
                className={`inline-flex h-9 w-9 items-center justify-center rounded-full bg-primary text-primary-foreground hover:opacity-90 disabled:cursor-not-allowed disabled:bg-muted disabled:text-muted-foreground`}
              >
                {sending ? <Spinner className="size-4" /> : <ArrowUpIcon />}
              </button>
            )}
          </div>
        </div>
        <p id={hintId} className="mt-1.5 px-1 text-xs text-muted-foreground">
          {blocked ? <span className="text-error">{blocked}</span> : limitsText ? `${limitsText}.` : null}
          <span className="hidden sm:inline">{t('keys')}</span>
        </p>
      </div>
    </form>
  );
}

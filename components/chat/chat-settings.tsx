'use client';
// Per-chat settings in a popover: system prompt, temperature, web search, citations, the service's default system
// prompt, memory, the tools (MCP servers) it may call. Edits are a draft until Save (a new chat keeps them until its
// first send creates it). A temporary chat saves nothing and reads no memory or knowledge (temporarySettings in
// use-chat-controller.ts drops them), so its dialog offers neither and says why in one line.
import { useTranslations } from 'use-intl';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import type { AppModelsResponse, ChatSettings, WebSearchMode } from '@/lib/wire.ts';
import { Button } from '@/components/ui/button.tsx';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { SlidersIcon } from './icons.tsx';
import { ToolSettings } from './tool-settings.tsx';
import { useDismiss } from './use-dismiss.ts';
import { useFocusTrap } from './use-focus-trap.ts';
import { VoiceSettings } from '@/components/audio/voice-settings.tsx';
import { loadVoicePrefs, saveVoicePrefs, type VoicePrefs } from '@/components/audio/voice-prefs.ts';
import { KnowledgePicker } from '@/components/knowledge/knowledge-picker.tsx';

const MODES: WebSearchMode[] = ['off', 'auto', 'on'];

interface Props {
  settings: ChatSettings;
  onSave: (s: ChatSettings) => void;
  /** Whether this server can search the web (undefined while loading: the choice is offered). */
  webSearch?: AppModelsResponse['webSearch'];
  /** Whether the chat's model can call tools (undefined: not known yet). */
  toolsSupported?: boolean;
  /** A temporary chat: no memory or knowledge-base choices, which it would ignore. */
  temporary?: boolean;
}

export function ChatSettingsButton({ settings, onSave, webSearch, toolsSupported, temporary }: Props) {
  const t = useTranslations('chat.settings');
  const searchOff = webSearch !== undefined && !webSearch.available;
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<ChatSettings>(settings);
  // The read-aloud voice is the user's (this browser), not the chat's: drafted here, saved with the rest.
  const [voice, setVoice] = useState<VoicePrefs>({ speed: 1 });
  const root = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const first = useRef<HTMLTextAreaElement>(null);
  const id = useId();
  const close = useCallback(() => setOpen(false), []);
  useDismiss(open, root, close, trigger);
  const dialog = useRef<HTMLDivElement>(null);
  useFocusTrap(open, dialog);
  useEffect(() => {
    if (open) first.current?.focus();
  }, [open]);

  const set = <K extends keyof ChatSettings>(k: K, v: ChatSettings[K]) => setDraft((d) => ({ ...d, [k]: v }));
  const save = () => {
    // A chat saved with "on" before search went away is saved with "off": the server refuses "on" without search.
    const webSearchMode = searchOff && draft.webSearch === 'on' ? 'off' : draft.webSearch;
    onSave({ ...draft, webSearch: webSearchMode, systemPrompt: draft.systemPrompt?.trim() ? draft.systemPrompt : undefined });
    saveVoicePrefs(voice);
    setOpen(false);
    trigger.current?.focus();
  };
  const temperature = draft.temperature;
  const field = 'block text-sm font-medium text-foreground';

  return (
    <div ref={root} className="relative">
      <IconButton
        ref={trigger}
        size="sm"
        label={t('title')}
        data-testid="chat-settings"
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => {
          if (!open) {
            setDraft(settings);
            setVoice(loadVoicePrefs());
          }
          setOpen(!open);
        }}
      >
        <SlidersIcon />
      </IconButton>
      {open && (
        <div
          ref={dialog}
          role="dialog"
          aria-labelledby={`${id}-title`}
          className="absolute top-full right-0 z-30 mt-1 w-[min(22rem,calc(100vw-1.5rem))] space-y-4 rounded-xl border border-border bg-popover p-4 text-popover-foreground shadow-lg"
        >
          <h2 id={`${id}-title`} className="text-sm font-semibold">
            {t('title')}
          </h2>
          <div>
            <label htmlFor={`${id}-sp`} className={field}>
              {t('systemPrompt')}
            </label>
            <textarea
              id={`${id}-sp`}
              ref={first}
              rows={4}
              value={draft.systemPrompt ?? ''}
              onChange={(e) => set('systemPrompt', e.target.value)}
              placeholder={t('systemPromptPlaceholder')}
              className="mt-1 block max-h-48 w-full resize-y rounded-lg border border-input bg-background px-3 py-2 text-base placeholder:text-muted-foreground"
            />
          </div>
          <div>
            <div className="flex items-center justify-between">
              <label htmlFor={`${id}-t`} className={field}>
                {t('temperature')}
              </label>
              <span className="flex items-center gap-2 text-sm tabular-nums text-muted-foreground">
                {temperature === undefined ? t('modelDefault') : temperature.toFixed(1)}
                {temperature !== undefined && (
                  <button type="button" className="text-xs font-medium text-primary underline" onClick={() => set('temperature', undefined)}>
                    {t('reset')}
                  </button>
                )}
              </span>
            </div>
            <input
              id={`${id}-t`}
              type="range"
              min={0}
              max={2}
              step={0.1}
              value={temperature ?? 1}
              onChange={(e) => set('temperature', Number(e.target.value))}
              aria-valuetext={temperature === undefined ? t('modelDefault') : temperature.toFixed(1)}
              className="mt-2 w-full accent-[var(--primary)]"
            />
            <p className="flex justify-between text-xs text-muted-foreground">
              <span>{t('precise')}</span>
              <span>{t('creative')}</span>
            </p>
          </div>
          <fieldset data-testid="web-search-setting" data-available={!searchOff}>
            <legend className={field}>{t('webSearch')}</legend>
            {searchOff ? (
              <p className="mt-1 rounded-lg bg-muted px-3 py-2 text-sm text-muted-foreground" data-testid="web-search-unavailable">
                {webSearch?.reason ?? t('webSearchOff')}
              </p>
            ) : (
              <div className="mt-1 grid grid-cols-3 gap-1 rounded-lg bg-muted p-1">
                {MODES.map((m) => (
                  <label
                    key={m}
                    className="cursor-pointer rounded-md px-2 py-1 text-center text-sm has-[:checked]:bg-background has-[:checked]:font-medium has-[:checked]:shadow-sm has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-ring"
                  >
                    <input
                      type="radio"
                      name={`${id}-ws`}
                      value={m}
                      checked={(draft.webSearch ?? 'off') === m}
                      onChange={() => set('webSearch', m)}
                      className="sr-only"
                    />
                    {t(m)}
                  </label>
                ))}
              </div>
            )}
          </fieldset>
          <label className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={draft.citations ?? true}
              onChange={(e) => set('citations', e.target.checked)}
              className="size-4 accent-[var(--primary)]"
            />
            {t('citations')}
          </label>
          {temporary ? (
            <p className="text-sm text-muted-foreground" data-testid="temporary-settings-note">
              {t('temporaryNote')}
            </p>
          ) : (
            <KnowledgePicker value={draft.knowledge ?? []} onChange={(ids) => set('knowledge', ids.length ? ids : undefined)} />
          )}
          <label className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={draft.includeServiceSystemPrompt ?? true}
              onChange={(e) => set('includeServiceSystemPrompt', e.target.checked)}
              className="size-4 accent-[var(--primary)]"
            />
            {t('servicePrompt')}
          </label>
          {!temporary && (
            <label className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                data-testid="memory-setting"
                checked={draft.memory ?? true}
                onChange={(e) => set('memory', e.target.checked)}
                className="size-4 accent-[var(--primary)]"
              />
              {t('memory')}
            </label>
          )}
          <ToolSettings value={draft.tools} onChange={(ids) => set('tools', ids)} supported={toolsSupported} />
          <VoiceSettings value={voice} onChange={setVoice} />
          <div className="flex justify-end gap-2">
            <Button
              variant="ghost"
              size="sm"
              onClick={() => {
                setOpen(false);
                trigger.current?.focus();
              }}
            >
              {t('cancel')}
            </Button>
            <Button size="sm" onClick={save}>
              {t('save')}
            </Button>
          </div>
        </div>
      )}
    </div>
  );
}

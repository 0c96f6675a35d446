'use client';
// The model picker: a button opening a listbox (WAI-ARIA listbox pattern: arrows, Home/End, Enter/Space picks,
// Escape closes, focus returns to the button), each option with capabilities and prices.
import { useTranslations } from 'use-intl';
import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { AppModel } from '@/lib/wire.ts';
import { ChevronDownIcon } from './icons.tsx';
import { ModelOption } from './model-option.tsx';
import { onOpenModelPicker } from './open-model-picker.ts';
import { useDismiss } from './use-dismiss.ts';
import { useMe } from '@/components/session/use-me.ts';

interface Props {
  models: AppModel[];
  value: string | null;
  onChange: (id: string) => void;
  disabled?: boolean;
}

export function ModelPicker({ models, value, onChange, disabled }: Props) {
  const t = useTranslations('chat.picker');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const listId = useId();
  const current = models.find((m) => m.id === value);
  const isAdmin = !!useMe().data?.user.isAdmin;
  const close = useCallback(() => setOpen(false), []);
  useDismiss(open, root, close, button);
  useEffect(() => {
    if (open) list.current?.focus();
  }, [open]);

  const show = () => {
    setActive(
      Math.max(
        0,
        models.findIndex((m) => m.id === value),
      ),
    );
    setOpen(true);
  };
  const showRef = useRef(show);
  showRef.current = show;
  useEffect(() => onOpenModelPicker(() => !disabled && models.length > 0 && showRef.current()), [disabled, models.length]);
  const pick = (i: number) => {
    const m = models[i];
    if (m && m.id !== value) onChange(m.id);
    setOpen(false);
    button.current?.focus();
  };
  const onListKey = (e: KeyboardEvent) => {
    const moves: Record<string, number> = { ArrowDown: active + 1, ArrowUp: active - 1, Home: 0, End: models.length - 1 };
    if (e.key in moves) {
      e.preventDefault();
      const i = Math.min(models.length - 1, Math.max(0, moves[e.key]));
      setActive(i);
      document.getElementById(`${listId}-${i}`)?.scrollIntoView({ block: 'nearest' });
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      pick(active);
    } else if (e.key === 'Tab') {
      setOpen(false);
    }
  };

  return (
    <div ref={root} className="relative min-w-0">
      <button
        ref={button}
        type="button"
        data-testid="model-picker"
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        aria-label={`${t('label', { name: current?.name ?? t('choose') })}${current?.unavailable ? t('unreachableSuffix') : ''}${current?.demo ? t('demoSuffix') : ''}`}
        disabled={disabled || models.length === 0}
        onClick={() => (open ? setOpen(false) : show())}
        onKeyDown={(e) => {
          if (!open && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
            e.preventDefault();
            show();
          }
        }}
        className={`flex max-w-full min-w-0 items-center gap-1 rounded-lg px-2 py-1.5 text-sm font-semibold text-foreground hover:bg-accent disabled:opacity-60`}
      >
        <span className="truncate">{current?.name ?? (models.length ? t('chooseModel') : t('loading'))}</span>
        {current?.unavailable && (
          <span className="shrink-0 rounded bg-error/10 px-1 text-xs font-medium text-error" data-testid="model-unreachable-badge">
            {t('unreachable')}
          </span>
        )}
        {current?.demo && (
          <span className="shrink-0 rounded bg-muted px-1 text-xs font-medium text-muted-foreground" data-testid="demo-badge">
            {t('demo')}
          </span>
        )}
        <ChevronDownIcon className="size-4 shrink-0" />
      </button>
      {open && (
        <ul
          id={listId}
          role="listbox"
          aria-label={t('models')}
          tabIndex={-1}
          aria-activedescendant={`${listId}-${active}`}
          ref={list}
          onKeyDown={onListKey}
          className="absolute top-full left-0 z-30 mt-1 max-h-[min(28rem,70dvh)] w-[min(24rem,calc(100vw-1.5rem))] overflow-y-auto rounded-xl border border-border bg-background p-1 shadow-lg outline-none"
        >
          {models.map((m, i) => (
            <ModelOption
              key={m.id}
              id={`${listId}-${i}`}
              model={m}
              isAdmin={isAdmin}
              selected={m.id === value}
              active={i === active}
              onPick={() => pick(i)}
              onHover={() => setActive(i)}
            />
          ))}
        </ul>
      )}
    </div>
  );
}

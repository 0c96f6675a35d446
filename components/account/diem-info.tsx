'use client';
// What DIEM is, where it appears (each answer's cost, balances): an info button opening a short explanation. The
// same words are the button's accessible description, so a screen reader gets them without opening it.
import { useEffect, useId, useRef, useState } from 'react';
import { useTranslations } from 'use-intl';

export function DiemInfo({ className = '' }: { className?: string }) {
  const t = useTranslations('diem');
  const [open, setOpen] = useState(false);
  const id = useId();
  const root = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    if (!open) return;
    const away = (e: PointerEvent) => !root.current?.contains(e.target as Node) && setOpen(false);
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    document.addEventListener('pointerdown', away);
    document.addEventListener('keydown', esc);
    return () => {
      document.removeEventListener('pointerdown', away);
      document.removeEventListener('keydown', esc);
    };
  }, [open]);
  return (
    <span ref={root} className={`relative inline-flex align-middle ${className}`}>
      <button
        type="button"
        aria-label={t('what')}
        aria-describedby={`${id}-text`}
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid="diem-info"
        className="inline-flex size-4 items-center justify-center rounded-full border border-current text-[0.625rem] leading-none font-semibold text-muted-foreground hover:text-foreground"
      >
        ?
      </button>
      <span
        id={`${id}-text`}
        role="tooltip"
        hidden={!open}
        data-testid="diem-explained"
        className="absolute bottom-full left-1/2 z-40 mb-1 w-64 -translate-x-1/2 rounded-lg border border-border bg-popover p-2.5 text-left text-xs font-normal text-popover-foreground shadow-lg"
      >
        {t('explained')}
      </span>
    </span>
  );
}

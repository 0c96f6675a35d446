'use client';
// Inline title editor: Enter (or leaving the field) saves, Esc cancels; an empty or unchanged title saves nothing.
import { useTranslations } from 'use-intl';
import { useEffect, useRef, useState } from 'react';

export function RenameInput({
  initial,
  onSave,
  onCancel,
  label,
  testId = 'rename-input',
  saveUnchanged = false,
}: {
  initial: string;
  onSave: (title: string) => void;
  onCancel: () => void;
  label?: string;
  testId?: string;
  /** Save even when unchanged (a new folder's suggested name). */
  saveUnchanged?: boolean;
}) {
  const t = useTranslations('sidebar');
  const [value, setValue] = useState(initial);
  const ref = useRef<HTMLInputElement>(null);
  const done = useRef(false);

  useEffect(() => {
    ref.current?.focus();
    ref.current?.select();
  }, []);

  const finish = (save: boolean) => {
    if (done.current) return;
    done.current = true;
    const title = value.trim();
    if (save && title && (title !== initial || saveUnchanged)) onSave(title);
    else onCancel();
  };

  return (
    <input
      ref={ref}
      value={value}
      maxLength={200}
      aria-label={label ?? t('chatTitle')}
      data-testid={testId}
      onChange={(e) => setValue(e.target.value)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          finish(true);
        } else if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          finish(false);
        }
      }}
      onBlur={() => finish(true)}
      className="h-9 w-full rounded-lg border border-ring bg-background px-2.5 text-base"
    />
  );
}

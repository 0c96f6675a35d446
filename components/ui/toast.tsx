'use client';
// Transient notices for the outcome of background actions (a failed rename, a deleted chat), so nothing fails
// silently. Errors are announced as alerts and stay longer; every toast can be dismissed.
import { useTranslations } from 'use-intl';
import { createContext, useCallback, useContext, useRef, useState, type ReactNode } from 'react';
import { cn } from '@/components/ui/cn.ts';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { XIcon } from '@/components/ui/icons.tsx';

export interface ToastInput {
  message: string;
  tone?: 'error' | 'info' | 'success';
}

interface ToastItem extends Required<ToastInput> {
  id: number;
}

const ToastContext = createContext<((t: ToastInput) => void) | null>(null);
const MAX_VISIBLE = 4;

export function ToastProvider({ children }: { children: ReactNode }) {
  const tc = useTranslations('common');
  const [toasts, setToasts] = useState<ToastItem[]>([]);
  const seq = useRef(0);

  const dismiss = useCallback((id: number) => setToasts((ts) => ts.filter((t) => t.id !== id)), []);
  const show = useCallback(
    (t: ToastInput) => {
      const item: ToastItem = { id: ++seq.current, message: t.message, tone: t.tone ?? 'info' };
      setToasts((ts) => [...ts.slice(-(MAX_VISIBLE - 1)), item]);
      setTimeout(() => dismiss(item.id), item.tone === 'error' ? 10_000 : 5_000);
    },
    [dismiss],
  );

  return (
    <ToastContext.Provider value={show}>
      {children}
      <section
        aria-label={tc('notifications')}
        aria-live="polite"
        className="pointer-events-none fixed inset-x-0 bottom-4 z-[60] flex flex-col items-center gap-2 px-4 sm:items-end"
      >
        {toasts.map((t) => (
          <div
            key={t.id}
            role={t.tone === 'error' ? 'alert' : undefined}
            data-testid="toast"
            className={cn(
              'pointer-events-auto flex w-full max-w-sm items-start gap-2 rounded-lg border bg-popover py-2 pl-3 pr-1 text-sm text-popover-foreground shadow-lg',
              t.tone === 'error' ? 'border-error/50' : 'border-border',
            )}
          >
            <p className={cn('min-w-0 flex-1 py-1.5 break-words', t.tone === 'error' && 'text-error')}>{t.message}</p>
            <IconButton label={tc('dismissNotification')} size="sm" onClick={() => dismiss(t.id)}>
              <XIcon className="size-4" />
            </IconButton>
          </div>
        ))}
      </section>
    </ToastContext.Provider>
  );
}

export function useToast(): (t: ToastInput) => void {
  const ctx = useContext(ToastContext);
  if (!ctx) throw new Error('useToast must be used inside <ToastProvider>');
  return ctx;
}

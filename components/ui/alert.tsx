// An inline message box. Errors are announced (role="alert"); info is polite. `action` holds e.g. a Retry button.
import type { ReactNode } from 'react';
import { cn } from '@/components/ui/cn.ts';

export interface AlertProps {
  tone?: 'error' | 'info' | 'success';
  title?: string;
  children?: ReactNode;
  action?: ReactNode;
  className?: string;
  'data-testid'?: string;
}

const TONES = {
  error: 'border-error/40 bg-error/5 text-foreground',
  info: 'border-border bg-muted text-foreground',
  success: 'border-success/40 bg-success/5 text-foreground',
};

export function Alert({ tone = 'error', title, children, action, className, 'data-testid': testId }: AlertProps) {
  return (
    <div
      role={tone === 'error' ? 'alert' : 'status'}
      data-testid={testId}
      className={cn('flex flex-wrap items-start gap-x-3 gap-y-2 rounded-lg border px-3 py-2.5 text-sm', TONES[tone], className)}
    >
      <div className="min-w-0 flex-1">
        {title && <p className={cn('font-medium', tone === 'error' && 'text-error')}>{title}</p>}
        {children && <div className="break-words">{children}</div>}
      </div>
      {action && <div className="shrink-0">{action}</div>}
    </div>
  );
}

// A labelled multi-line field with a hint and, when it has a maxLength, a running count tied to it for screen readers.
import type { ReactNode, TextareaHTMLAttributes } from 'react';
import { cn } from '@/components/ui/cn.ts';
import { useFormat } from '@/components/i18n/format.ts';

export function TextArea({
  id,
  label,
  hint,
  className,
  ...rest
}: TextareaHTMLAttributes<HTMLTextAreaElement> & { id: string; label: string; hint?: ReactNode }) {
  const length = typeof rest.value === 'string' ? rest.value.length : 0;
  const fmt = useFormat();
  const max = rest.maxLength;
  const described = [hint ? `${id}-hint` : '', max ? `${id}-count` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={cn('flex min-w-0 flex-col gap-1', className)}>
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-muted-foreground">
          {hint}
        </p>
      )}
      <textarea
        id={id}
        aria-describedby={described}
        className="min-h-20 w-full resize-y rounded-lg border border-input bg-background px-3 py-2 text-foreground placeholder:text-muted-foreground focus-visible:border-ring aria-invalid:border-error"
        {...rest}
      />
      {max !== undefined && (
        <p id={`${id}-count`} className="text-right text-xs text-muted-foreground">
          {fmt.count(length)} / {fmt.count(max)}
        </p>
      )}
    </div>
  );
}

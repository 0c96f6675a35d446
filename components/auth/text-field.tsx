// A labelled input with an optional hint and an inline error, both tied to the input for screen readers.
import type { InputHTMLAttributes, ReactNode, Ref } from 'react';
import { cn } from '@/components/ui/cn.ts';

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  id: string;
  label: string;
  hint?: ReactNode;
  error?: string;
  /** Rendered inside the input's box on the right (e.g. a show-password button). */
  trailing?: ReactNode;
  ref?: Ref<HTMLInputElement>;
}

export const inputClasses =
  'h-11 w-full rounded-lg border border-input bg-background px-3 text-base text-foreground placeholder:text-muted-foreground ' +
  'focus-visible:border-ring aria-invalid:border-error';

export function TextField({ id, label, hint, error, trailing, className, ...input }: TextFieldProps) {
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <div className="relative">
        <input
          id={id}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy || undefined}
          className={cn(inputClasses, trailing ? 'pr-12' : '', className)}
          {...input}
        />
        {trailing && <div className="absolute inset-y-0 right-0.5 flex items-center">{trailing}</div>}
      </div>
      {hint && (
        <p id={`${id}-hint`} className="text-sm text-muted-foreground">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="text-sm text-error" data-testid={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

'use client';
// A small choice drawn as a segmented control: a radio group (arrow keys move between options, one tab stop).
import { cn } from '@/components/ui/cn.ts';

export interface SegmentedProps<T extends string | number> {
  legend: string;
  name: string;
  options: readonly { value: T; label: string }[];
  value: T;
  onChange: (value: T) => void;
  testId?: string;
}

export function Segmented<T extends string | number>({ legend, name, options, value, onChange, testId }: SegmentedProps<T>) {
  return (
    <fieldset className="inline-flex shrink-0 self-start rounded-lg border border-border bg-muted p-0.5" data-testid={testId}>
      <legend className="sr-only">{legend}</legend>
      {options.map((o) => (
        <label
          key={o.value}
          className={cn(
            'cursor-pointer rounded-md px-3 py-1.5 text-sm font-medium transition-colors has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-1 has-[:focus-visible]:outline-ring',
            value === o.value ? 'bg-background text-foreground shadow-sm' : 'text-muted-foreground hover:text-foreground',
          )}
        >
          <input type="radio" name={name} value={String(o.value)} checked={value === o.value} onChange={() => onChange(o.value)} className="sr-only" />
          {o.label}
        </label>
      ))}
    </fieldset>
  );
}

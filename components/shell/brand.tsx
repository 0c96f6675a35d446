// The Lagoon wordmark: a small wave mark and the name.
import { cn } from '@/components/ui/cn.ts';

export function BrandMark({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" aria-hidden="true" focusable="false" className={cn('size-7', className)}>
      <rect width="32" height="32" rx="9" className="fill-primary" />
      <path
        d="M6 13c3 0 3-3 6.7-3s3.6 3 6.6 3 3.7-3 6.7-3M6 20c3 0 3-3 6.7-3s3.6 3 6.6 3 3.7-3 6.7-3"
        fill="none"
        strokeWidth="2.4"
        strokeLinecap="round"
        className="stroke-primary-foreground"
      />
    </svg>
  );
}

export function Brand({ className }: { className?: string }) {
  return (
    <span className={cn('inline-flex items-center gap-2 text-lg font-semibold tracking-tight', className)}>
      <BrandMark />
      Lagoon
    </span>
  );
}

// A spinning ring. Decorative by default; pass `label` to announce it as a status (e.g. "Loading chats").
import { cn } from '@/components/ui/cn.ts';

export function Spinner({ className, label }: { className?: string; label?: string }) {
  const ring = (
    <svg viewBox="0 0 24 24" fill="none" aria-hidden="true" className={cn('animate-spin motion-reduce:animate-none', className ?? 'size-5')}>
      <circle cx="12" cy="12" r="9" stroke="currentColor" strokeOpacity="0.25" strokeWidth="3" />
      <path d="M21 12a9 9 0 0 0-9-9" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
    </svg>
  );
  if (!label) return ring;
  return (
    <span role="status" className="inline-flex items-center gap-2">
      {ring}
      <span className="sr-only">{label}</span>
    </span>
  );
}

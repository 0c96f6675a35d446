// What a model can do, as small badges: vision, reasoning, web search.
import type { AppModel } from '@/lib/wire.ts';

export function CapabilityBadges({ model }: { model: AppModel }) {
  const badges = [model.capabilities.vision && 'Vision', model.capabilities.reasoning && 'Reasoning', model.capabilities.webSearch && 'Web search'].filter(
    Boolean,
  ) as string[];
  if (badges.length === 0) return null;
  return (
    <span className="flex flex-wrap gap-1">
      {badges.map((b) => (
        <span key={b} className="rounded bg-muted px-1.5 py-0.5 text-[11px] font-medium text-muted-foreground">
          {b}
        </span>
      ))}
    </span>
  );
}

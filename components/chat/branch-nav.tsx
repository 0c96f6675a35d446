// ‹ n/m › between the versions of a message (edits and regenerations are siblings in the tree).
import { IconButton } from '@/components/ui/icon-button.tsx';
import { ChevronLeftIcon, ChevronRightIcon } from './icons.tsx';

interface Props {
  index: number;
  count: number;
  onStep: (step: -1 | 1) => void;
  disabled?: boolean;
}

export function BranchNav({ index, count, onStep, disabled }: Props) {
  if (count < 2) return null;
  return (
    <div className="flex items-center text-xs text-muted-foreground" role="group" aria-label="Versions of this message">
      <IconButton size="sm" label="Previous version" data-testid="branch-prev" disabled={disabled || index <= 1} onClick={() => onStep(-1)}>
        <ChevronLeftIcon />
      </IconButton>
      <span data-testid="branch-label" className="min-w-8 text-center tabular-nums" aria-hidden="true">
        {index}/{count}
      </span>
      <span className="sr-only">{`Version ${index} of ${count}`}</span>
      <IconButton size="sm" label="Next version" data-testid="branch-next" disabled={disabled || index >= count} onClick={() => onStep(1)}>
        <ChevronRightIcon />
      </IconButton>
    </div>
  );
}

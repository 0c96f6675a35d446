// Esc anywhere in the chat stops the answer being generated, unless a popover or dialog has it (they handle
// Escape first and stop its propagation).
import { useEffect, useRef } from 'react';

export function useStopOnEscape(active: boolean, stop: () => void): void {
  const stopRef = useRef(stop);
  stopRef.current = stop;
  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      if ((e.target as Element | null)?.closest?.('[role="dialog"], [role="listbox"], [role="menu"], dialog')) return;
      stopRef.current();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [active]);
}

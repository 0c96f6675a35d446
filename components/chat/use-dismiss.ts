// Closes a popover on a click outside it or on Escape (returning focus to its trigger).
import { useEffect, type RefObject } from 'react';

export function useDismiss(open: boolean, root: RefObject<HTMLElement | null>, close: () => void, trigger?: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) close();
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      e.stopPropagation();
      close();
      trigger?.current?.focus();
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey, true);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey, true);
    };
  }, [open, root, close, trigger]);
}

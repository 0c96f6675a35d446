'use client';
// The shell's two pieces of layout state: the drawer (small screens; closes on navigation, on Esc and when the
// screen grows past the breakpoint) and the collapsed sidebar (large screens; remembered across visits).
import { usePathname } from 'next/navigation';
import { useCallback, useEffect, useState } from 'react';

const COLLAPSED_KEY = 'lagoon-sidebar-collapsed';
const DESKTOP = '(min-width: 768px)';

export function useShellLayout() {
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [collapsed, setCollapsedState] = useState(false);
  const pathname = usePathname();

  useEffect(() => {
    try {
      setCollapsedState(localStorage.getItem(COLLAPSED_KEY) === '1');
    } catch {
      // No storage: start expanded.
    }
    const mq = window.matchMedia(DESKTOP);
    const onChange = () => mq.matches && setDrawerOpen(false);
    mq.addEventListener('change', onChange);
    return () => mq.removeEventListener('change', onChange);
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: navigating (a new pathname) closes the drawer
  useEffect(() => setDrawerOpen(false), [pathname]);

  useEffect(() => {
    if (!drawerOpen) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && !e.defaultPrevented && setDrawerOpen(false);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [drawerOpen]);

  const setCollapsed = useCallback((v: boolean) => {
    setCollapsedState(v);
    try {
      localStorage.setItem(COLLAPSED_KEY, v ? '1' : '0');
    } catch {
      // The choice still holds for this page.
    }
  }, []);

  return { drawerOpen, setDrawerOpen, collapsed, setCollapsed };
}

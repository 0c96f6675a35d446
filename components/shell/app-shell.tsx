'use client';
// The signed-in layout: sidebar and main area in a 100dvh frame. Under 768 px the sidebar is an off-canvas drawer
// (menu button, backdrop, Esc, focus moved in and back); above it, it can be collapsed to a rail.
// data-testid: app-shell, open-sidebar, expand-sidebar (plus the sidebar's own, see sidebar.tsx).
import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslations } from 'use-intl';
import { Sidebar } from '@/components/sidebar/sidebar.tsx';
import { cn } from '@/components/ui/cn.ts';
import { CollapsedRail } from '@/components/shell/collapsed-rail.tsx';
import { MobileTopBar } from '@/components/shell/mobile-top-bar.tsx';
import { useShellLayout } from '@/components/shell/use-shell-layout.ts';

export function AppShell({ children }: { children: ReactNode }) {
  const t = useTranslations('nav');
  const { drawerOpen, setDrawerOpen, collapsed, setCollapsed } = useShellLayout();
  const asideRef = useRef<HTMLElement>(null);
  const menuButtonRef = useRef<HTMLButtonElement>(null);
  const wasOpen = useRef(false);
  const wasCollapsed = useRef<boolean | null>(null);

  useEffect(() => {
    if (drawerOpen) asideRef.current?.querySelector<HTMLElement>('a, button, input')?.focus();
    else if (wasOpen.current) menuButtonRef.current?.focus();
    wasOpen.current = drawerOpen;
  }, [drawerOpen]);

  // The button just pressed disappears on collapse/expand: keep keyboard focus on its counterpart.
  useEffect(() => {
    if (wasCollapsed.current !== null && wasCollapsed.current !== collapsed && document.activeElement === document.body) {
      document.querySelector<HTMLElement>(collapsed ? '[data-testid="expand-sidebar"]' : '[data-testid="collapse-sidebar"]')?.focus();
    }
    wasCollapsed.current = collapsed;
  }, [collapsed]);

  return (
    <div className="flex h-dvh overflow-hidden" data-testid="app-shell">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:z-[70] focus:rounded-lg focus:bg-background focus:px-3 focus:py-2"
      >
        {t('skipToContent')}
      </a>
      {drawerOpen && <div aria-hidden="true" className="fixed inset-0 z-30 bg-black/50 md:hidden" onClick={() => setDrawerOpen(false)} />}
      <aside
        ref={asideRef}
        id="sidebar"
        aria-label={t('sidebar')}
        className={cn(
          'fixed inset-y-0 left-0 z-40 w-72 max-w-[85vw] border-r border-border shadow-xl transition-[translate,visibility] duration-200',
          'md:static md:z-auto md:max-w-none md:shadow-none md:transition-none',
          drawerOpen ? 'translate-x-0' : 'max-md:invisible max-md:-translate-x-full',
          collapsed && 'md:hidden',
        )}
      >
        <Sidebar onClose={() => setDrawerOpen(false)} onCollapse={() => setCollapsed(true)} />
      </aside>
      {collapsed && <CollapsedRail onExpand={() => setCollapsed(false)} />}
      <div className="flex min-w-0 flex-1 flex-col" inert={drawerOpen || undefined}>
        <MobileTopBar drawerOpen={drawerOpen} onOpen={() => setDrawerOpen(true)} menuButtonRef={menuButtonRef} />
        <main id="main" className="flex min-h-0 flex-1 flex-col overflow-hidden">
          {children}
        </main>
      </div>
    </div>
  );
}

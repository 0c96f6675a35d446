'use client';
// A dropdown menu (WAI-ARIA menu button): the popup is portalled and fixed-positioned beside its trigger, so lists
// that scroll or drawers that slide never clip it; it flips above the trigger near the bottom of the screen. Arrow
// keys, Home/End move; Esc closes and focus returns to the trigger; Tab, scrolling or a click outside close it.
import { createContext, useCallback, useContext, useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import Link from 'next/link';
import { createPortal } from 'react-dom';
import { cn } from '@/components/ui/cn.ts';
import { CheckIcon } from '@/components/ui/icons.tsx';
import { useMenuDismiss } from '@/components/ui/use-menu-dismiss.ts';

const MenuContext = createContext<(refocus?: boolean) => void>(() => {});
/** Closes the enclosing menu (items call it after acting). */
export const useCloseMenu = () => useContext(MenuContext);

export interface MenuProps {
  /** Accessible name of the menu, and of the trigger unless its visible text names it (`labelledByContent`). */
  label: string;
  labelledByContent?: boolean;
  trigger: ReactNode;
  triggerClassName?: string;
  align?: 'start' | 'end';
  children: ReactNode;
  testId?: string;
}

export function Menu({ label, labelledByContent, trigger, triggerClassName, align = 'end', children, testId }: MenuProps) {
  const [open, setOpen] = useState(false);
  const [pos, setPos] = useState<{ top: number; left: number } | null>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const popupRef = useRef<HTMLDivElement>(null);
  const menuId = useId();

  const items = () => Array.from(popupRef.current?.querySelectorAll<HTMLElement>('[role^="menuitem"]') ?? []);
  const close = useCallback((refocus = true) => {
    setOpen(false);
    setPos(null);
    if (refocus) triggerRef.current?.focus();
  }, []);
  useMenuDismiss(open, triggerRef, popupRef, close);

  useLayoutEffect(() => {
    if (!open) return;
    const t = triggerRef.current?.getBoundingClientRect();
    const p = popupRef.current;
    if (!t || !p) return;
    const { offsetWidth: w, offsetHeight: h } = p;
    const below = t.bottom + 4;
    const top = below + h > window.innerHeight - 8 && t.top - 4 - h > 8 ? t.top - 4 - h : below;
    const left = Math.min(Math.max(8, align === 'end' ? t.right - w : t.left), window.innerWidth - w - 8);
    setPos({ top, left });
  }, [open, align]);

  // Focus the first item once the popup is placed (a hidden element cannot take focus).
  const placed = pos !== null;
  // biome-ignore lint/correctness/useExhaustiveDependencies: items() reads the DOM; focus moves only when the popup is placed
  useEffect(() => {
    // preventScroll: the popup is fixed, so focusing it must not scroll the list behind (a scroll closes the menu).
    if (placed) items()[0]?.focus({ preventScroll: true });
  }, [placed]);

  const onKeyDown = (e: KeyboardEvent) => {
    const list = items();
    const i = list.indexOf(document.activeElement as HTMLElement);
    const move = (n: number) => list[(n + list.length) % list.length]?.focus({ preventScroll: true });
    if (e.key === 'ArrowDown') move(i + 1);
    else if (e.key === 'ArrowUp') move(i - 1);
    else if (e.key === 'Home') move(0);
    else if (e.key === 'End') move(list.length - 1);
    else if (e.key === 'Escape') close();
    else if (e.key === 'Tab') return close(false);
    else return;
    e.preventDefault();
    e.stopPropagation();
  };

  return (
    <>
      <button
        ref={triggerRef}
        type="button"
        aria-label={labelledByContent ? undefined : label}
        title={labelledByContent ? undefined : label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        data-testid={testId}
        onClick={() => (open ? close() : setOpen(true))}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' && !open) {
            e.preventDefault();
            setOpen(true);
          }
        }}
        className={triggerClassName}
      >
        {trigger}
      </button>
      {open &&
        createPortal(
          <div
            ref={popupRef}
            id={menuId}
            role="menu"
            aria-label={label}
            onKeyDown={onKeyDown}
            style={{ top: pos?.top ?? 0, left: pos?.left ?? 0, visibility: pos ? 'visible' : 'hidden' }}
            className="fixed z-50 min-w-48 max-w-[calc(100vw-1rem)] rounded-lg border border-border bg-popover p-1 text-popover-foreground shadow-xl"
          >
            <MenuContext.Provider value={close}>{children}</MenuContext.Provider>
          </div>,
          document.body,
        )}
    </>
  );
}

const ITEM = 'flex w-full items-center gap-2.5 rounded-md px-2.5 py-2 text-left text-sm outline-none hover:bg-accent focus-visible:bg-accent focus:bg-accent';

export function MenuItem({ onSelect, children, danger, testId }: { onSelect: () => void; children: ReactNode; danger?: boolean; testId?: string }) {
  const close = useCloseMenu();
  return (
    <button
      type="button"
      role="menuitem"
      tabIndex={-1}
      data-testid={testId}
      className={cn(ITEM, danger && 'text-error')}
      onClick={() => {
        close();
        onSelect();
      }}
    >
      {children}
    </button>
  );
}

/** A link item: a download goes through a plain <a download>, a page of the app through Next's client navigation. */
export function MenuLink({ href, download, children, testId }: { href: string; download?: boolean; children: ReactNode; testId?: string }) {
  const close = useCloseMenu();
  const props = { role: 'menuitem', tabIndex: -1, href, 'data-testid': testId, className: ITEM, onClick: () => close(false) };
  return download ? (
    <a {...props} download>
      {children}
    </a>
  ) : (
    <Link {...props}>{children}</Link>
  );
}

/** A choice among several (role menuitemradio); the menu stays open so the effect can be seen. */
export function MenuRadioItem({ checked, onSelect, children, testId }: { checked: boolean; onSelect: () => void; children: ReactNode; testId?: string }) {
  return (
    <button
      type="button"
      role="menuitemradio"
      aria-checked={checked}
      tabIndex={-1}
      data-testid={testId}
      className={cn(ITEM, checked && 'font-medium')}
      onClick={onSelect}
    >
      {children}
      {checked && <CheckIcon className="ml-auto size-4 text-primary" />}
    </button>
  );
}

export function MenuSeparator() {
  return <div role="separator" className="my-1 h-px bg-border" />;
}

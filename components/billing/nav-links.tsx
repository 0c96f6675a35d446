'use client';
// The account pages' links in the sidebar (and as icons in the collapsed rail): Billing, API keys, Rate limits, and
// Operator for the operator only.
// data-testid: billing-link, keys-link, limits-link, operator-link.
import Link from 'next/link';
import type { ComponentType } from 'react';
import { BillingIcon, GaugeIcon, KeyIcon, ShieldIcon } from '@/components/billing/icons.tsx';
import { useMe } from '@/components/session/use-me.ts';
import { buttonClasses } from '@/components/ui/button.tsx';
import { cn } from '@/components/ui/cn.ts';

interface NavLink {
  href: string;
  label: string;
  Icon: ComponentType<{ className?: string }>;
  testId: string;
}

const LINKS: NavLink[] = [
  { href: '/billing', label: 'Billing', Icon: BillingIcon, testId: 'billing-link' },
  { href: '/keys', label: 'API keys', Icon: KeyIcon, testId: 'keys-link' },
  { href: '/limits', label: 'Rate limits', Icon: GaugeIcon, testId: 'limits-link' },
];
const OPERATOR: NavLink = { href: '/operator', label: 'Operator', Icon: ShieldIcon, testId: 'operator-link' };

function useLinks(): NavLink[] {
  const user = useMe().data?.user;
  return user?.isAdmin && !user.wallet ? [...LINKS, OPERATOR] : LINKS;
}

export function AccountLinks({ pathname }: { pathname: string }) {
  return useLinks().map(({ href, label, Icon, testId }) => (
    <Link
      key={href}
      href={href}
      aria-current={pathname === href ? 'page' : undefined}
      className={cn(buttonClasses('ghost', 'md', 'justify-start font-normal'), pathname === href && 'bg-accent font-medium')}
      data-testid={testId}
    >
      <Icon className="size-4" /> {label}
    </Link>
  ));
}

export function AccountRailLinks({ className }: { className: string }) {
  return useLinks().map(({ href, label, Icon }) => (
    <Link key={href} href={href} aria-label={label} title={label} className={className}>
      <Icon />
    </Link>
  ));
}

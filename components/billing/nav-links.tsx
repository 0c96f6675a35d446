'use client';
// The account pages, one Account area in the same words everywhere: in the account menu at the foot of the sidebar
// (so the chat history comes first) and as icons in the collapsed rail: Usage, Billing, API keys, Rate limits, Alerts, and
// Operator for the operator only.
// data-testid: usage-link, billing-link, keys-link, limits-link, alerts-link, operator-link.
import Link from 'next/link';
import type { ComponentType } from 'react';
import { BellIcon, BillingIcon, GaugeIcon, KeyIcon, ShieldIcon } from '@/components/billing/icons.tsx';
import { MenuLink } from '@/components/ui/menu.tsx';
import { UsageIcon } from '@/components/usage/usage-icon.tsx';
import { useMe } from '@/components/session/use-me.ts';

interface NavLink {
  href: string;
  label: string;
  Icon: ComponentType<{ className?: string }>;
  testId: string;
}

const LINKS: NavLink[] = [
  { href: '/usage', label: 'Usage', Icon: UsageIcon, testId: 'usage-link' },
  { href: '/billing', label: 'Billing', Icon: BillingIcon, testId: 'billing-link' },
  { href: '/keys', label: 'API keys', Icon: KeyIcon, testId: 'keys-link' },
  { href: '/limits', label: 'Rate limits', Icon: GaugeIcon, testId: 'limits-link' },
  { href: '/alerts', label: 'Alerts', Icon: BellIcon, testId: 'alerts-link' },
];
const OPERATOR: NavLink = { href: '/operator', label: 'Operator', Icon: ShieldIcon, testId: 'operator-link' };

function useLinks(): NavLink[] {
  const user = useMe().data?.user;
  return user?.isAdmin && !user.wallet ? [...LINKS, OPERATOR] : LINKS;
}

/** The account pages as items of the account menu. */
export function AccountMenuLinks() {
  return useLinks().map(({ href, label, Icon, testId }) => (
    <MenuLink key={href} href={href} testId={testId}>
      <Icon className="size-4" /> {label}
    </MenuLink>
  ));
}

export function AccountRailLinks({ className }: { className: string }) {
  return useLinks().map(({ href, label, Icon }) => (
    <Link key={href} href={href} aria-label={label} title={label} className={className}>
      <Icon />
    </Link>
  ));
}

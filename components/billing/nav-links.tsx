'use client';
// The Account area, one place in the same words everywhere (issue 32): the account menu at the foot of the sidebar and
// the collapsed rail each have one Account entry (and Operator, for the operator only); inside, every account page
// shows the same tabs: Account, Usage, Billing, API keys, Rate limits, Alerts (and Operator). A plain chat user never meets
// API keys or rate limits above the chat history.
// data-testid: account-link (menu), account-tabs, account-tab (data-href) with usage-link, billing-link, keys-link,
// limits-link, alerts-link, operator-link on the tabs.
import Link from 'next/link';
import type { ComponentType } from 'react';
import { useTranslations } from 'use-intl';
import { BellIcon, BillingIcon, GaugeIcon, KeyIcon, ShieldIcon } from '@/components/billing/icons.tsx';
import { cn } from '@/components/ui/cn.ts';
import { WalletIcon } from '@/components/ui/icons.tsx';
import { MenuLink } from '@/components/ui/menu.tsx';
import { UsageIcon } from '@/components/usage/usage-icon.tsx';
import { useMe } from '@/components/session/use-me.ts';

type PageKey = 'account' | 'usage' | 'billing' | 'keys' | 'limits' | 'alerts' | 'operator';

interface AccountPage {
  href: string;
  key: PageKey;
  Icon: ComponentType<{ className?: string }>;
  testId: string;
}

/** The Account area's pages, in tab order. */
const PAGES: AccountPage[] = [
  { href: '/account', key: 'account', Icon: WalletIcon, testId: 'account-tab-account' },
  { href: '/usage', key: 'usage', Icon: UsageIcon, testId: 'usage-link' },
  { href: '/billing', key: 'billing', Icon: BillingIcon, testId: 'billing-link' },
  { href: '/keys', key: 'keys', Icon: KeyIcon, testId: 'keys-link' },
  { href: '/limits', key: 'limits', Icon: GaugeIcon, testId: 'limits-link' },
  { href: '/alerts', key: 'alerts', Icon: BellIcon, testId: 'alerts-link' },
];
const OPERATOR: AccountPage = { href: '/operator', key: 'operator', Icon: ShieldIcon, testId: 'operator-link' };

function useIsOperator(): boolean {
  const user = useMe().data?.user;
  return Boolean(user?.isAdmin && !user.wallet);
}

/** The tabs at the top of every account page; `current` is the page's own address (operator subpages: '/operator'). */
export function AccountNav({ current }: { current: string }) {
  const t = useTranslations('accountNav');
  const pages = useIsOperator() ? [...PAGES, OPERATOR] : PAGES;
  return (
    <nav aria-label={t('label')} data-testid="account-tabs" className="-mx-1 flex gap-1 overflow-x-auto border-b border-border">
      {pages.map(({ href, key, Icon, testId }) => {
        const active = current === href;
        return (
          <Link
            key={href}
            href={href}
            aria-current={active ? 'page' : undefined}
            data-testid={testId}
            data-href={href}
            className={cn(
              '-mb-px inline-flex shrink-0 items-center gap-1.5 border-b-2 px-2.5 py-2 text-sm',
              active ? 'border-primary font-medium text-foreground' : 'border-transparent text-muted-foreground hover:text-foreground',
            )}
          >
            <Icon className="size-4" /> {t(key)}
          </Link>
        );
      })}
    </nav>
  );
}

/** The account menu's entries: the Account area, and Operator for the operator. */
export function AccountMenuLinks() {
  const t = useTranslations('accountNav');
  const operator = useIsOperator();
  return (
    <>
      <MenuLink href="/account" testId="account-link">
        <WalletIcon className="size-4" /> {t('account')}
      </MenuLink>
      {operator && (
        <MenuLink href={OPERATOR.href} testId="operator-menu-link">
          <ShieldIcon className="size-4" /> {t('operator')}
        </MenuLink>
      )}
    </>
  );
}

/** The same two entries as icons in the collapsed rail. */
export function AccountRailLinks({ className }: { className: string }) {
  const t = useTranslations('accountNav');
  const operator = useIsOperator();
  return [PAGES[0], ...(operator ? [OPERATOR] : [])].map(({ href, key, Icon }) => (
    <Link key={href} href={href} aria-label={t(key)} title={t(key)} className={className}>
      <Icon />
    </Link>
  ));
}

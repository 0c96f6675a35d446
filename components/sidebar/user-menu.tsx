'use client';
// The sidebar footer: who is signed in, and a menu with the theme choice, the Account area (the account page, usage,
// billing, API keys and rate limits, reached through one entry; Operator for the operator) and sign-out.
import { useTranslations } from 'use-intl';
import { useMe } from '@/components/session/use-me.ts';
import { useTheme, type ThemeChoice } from '@/components/theme/theme-provider.tsx';
import { LogOutIcon, MonitorIcon, MoonIcon, SunIcon } from '@/components/ui/icons.tsx';
import { initials } from '@/components/ui/initials.ts';
import { Menu, MenuItem, MenuRadioItem, MenuSeparator } from '@/components/ui/menu.tsx';
import { useSignOut } from '@/components/sidebar/use-sign-out.ts';
import { AccountMenuLinks } from '@/components/billing/nav-links.tsx';

const THEMES: Array<{ value: ThemeChoice; Icon: typeof SunIcon }> = [
  { value: 'light', Icon: SunIcon },
  { value: 'dark', Icon: MoonIcon },
  { value: 'system', Icon: MonitorIcon },
];

export function UserMenu() {
  const t = useTranslations('userMenu');
  const me = useMe();
  const { theme, setTheme } = useTheme();
  const signOut = useSignOut();
  const user = me.data?.user;
  const name = user?.displayName || user?.email || t('account');

  return (
    <Menu
      label={t('menu')}
      labelledByContent
      align="start"
      testId="user-menu"
      triggerClassName="flex w-full items-center gap-2.5 rounded-lg p-2 text-left hover:bg-accent aria-expanded:bg-accent"
      trigger={
        <>
          <span aria-hidden="true" className="grid size-8 shrink-0 place-items-center rounded-full bg-primary text-xs font-semibold text-primary-foreground">
            {initials(name)}
          </span>
          <span className="min-w-0 flex-1">
            <span className="block truncate text-sm font-medium">{name}</span>
            {user?.displayName && user.email && <span className="block truncate text-xs text-muted-foreground">{user.email}</span>}
          </span>
        </>
      }
    >
      <div role="group" aria-label={t('theme')}>
        <p className="px-2.5 pb-1 pt-1.5 text-xs font-medium text-muted-foreground" aria-hidden="true">
          {t('theme')}
        </p>
        {THEMES.map(({ value, Icon }) => (
          <MenuRadioItem key={value} checked={theme === value} onSelect={() => setTheme(value)} testId={`theme-${value}`}>
            <Icon className="size-4" /> {t(value)}
          </MenuRadioItem>
        ))}
      </div>
      <MenuSeparator />
      <div role="group" aria-label={t('account')}>
        <AccountMenuLinks />
      </div>
      <MenuSeparator />
      <MenuItem onSelect={() => signOut.mutate()} testId="sign-out">
        <LogOutIcon className="size-4" /> {t('signOut')}
      </MenuItem>
    </Menu>
  );
}

'use client';
// The sidebar footer: who is signed in, and a menu with the theme choice, the Account area (the account page, usage,
// billing, API keys, rate limits; operator) and sign-out.
import { useMe } from '@/components/session/use-me.ts';
import { useTheme, type ThemeChoice } from '@/components/theme/theme-provider.tsx';
import { LogOutIcon, MonitorIcon, MoonIcon, SunIcon, WalletIcon } from '@/components/ui/icons.tsx';
import { initials } from '@/components/ui/initials.ts';
import { Menu, MenuItem, MenuLink, MenuRadioItem, MenuSeparator } from '@/components/ui/menu.tsx';
import { useSignOut } from '@/components/sidebar/use-sign-out.ts';
import { AccountMenuLinks } from '@/components/billing/nav-links.tsx';

const THEMES: Array<{ value: ThemeChoice; label: string; Icon: typeof SunIcon }> = [
  { value: 'light', label: 'Light', Icon: SunIcon },
  { value: 'dark', label: 'Dark', Icon: MoonIcon },
  { value: 'system', label: 'System', Icon: MonitorIcon },
];

export function UserMenu() {
  const me = useMe();
  const { theme, setTheme } = useTheme();
  const signOut = useSignOut();
  const user = me.data?.user;
  const name = user?.displayName || user?.email || 'Account';

  return (
    <Menu
      label="Account menu"
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
      <div role="group" aria-label="Theme">
        <p className="px-2.5 pb-1 pt-1.5 text-xs font-medium text-muted-foreground" aria-hidden="true">
          Theme
        </p>
        {THEMES.map(({ value, label, Icon }) => (
          <MenuRadioItem key={value} checked={theme === value} onSelect={() => setTheme(value)} testId={`theme-${value}`}>
            <Icon className="size-4" /> {label}
          </MenuRadioItem>
        ))}
      </div>
      <MenuSeparator />
      <div role="group" aria-label="Account">
        <MenuLink href="/account" testId="account-link">
          <WalletIcon className="size-4" /> Account and credit
        </MenuLink>
        <AccountMenuLinks />
      </div>
      <MenuSeparator />
      <MenuItem onSelect={() => signOut.mutate()} testId="sign-out">
        <LogOutIcon className="size-4" /> Sign out
      </MenuItem>
    </Menu>
  );
}

'use client';
// The history search box. Esc clears it (and returns to the chat list).
import { useTranslations } from 'use-intl';
import { IconButton } from '@/components/ui/icon-button.tsx';
import { SearchIcon, XIcon } from '@/components/ui/icons.tsx';

export function SidebarSearch({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const t = useTranslations('nav');
  return (
    <div role="search" aria-label={t('chats')} className="relative">
      <label htmlFor="sidebar-search" className="sr-only">
        {t('searchChats')}
      </label>
      <SearchIcon className="pointer-events-none absolute left-2.5 top-1/2 size-4 -translate-y-1/2 text-muted-foreground" />
      <input
        id="sidebar-search"
        type="search"
        data-testid="sidebar-search"
        placeholder={t('searchChats')}
        autoComplete="off"
        value={value}
        maxLength={200}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && value) {
            e.preventDefault();
            e.stopPropagation();
            onChange('');
          }
        }}
        className="h-10 w-full rounded-lg border border-border bg-background pl-8 pr-9 text-base placeholder:text-muted-foreground focus-visible:border-ring [&::-webkit-search-cancel-button]:hidden"
      />
      {value && (
        <IconButton label={t('clearSearch')} size="sm" className="absolute right-0.5 top-1/2 -translate-y-1/2" onClick={() => onChange('')}>
          <XIcon className="size-4" />
        </IconButton>
      )}
    </div>
  );
}

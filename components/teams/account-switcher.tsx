'use client';
// The account switcher above the account menu: the user's own account or one of their teams. The choice is the
// session's (POST /teams/switch); every page then reads the chosen account, so all cached queries are reset.
// Shown once the user is in a team; "Teams" leads to the teams page either way.
// data-testid: account-switcher (a select), teams-link.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useId, useState } from 'react';
import { useTranslations } from 'use-intl';
import { call } from '@/components/api/client.ts';

export const TEAMS_QUERY = ['teams'] as const;
const PERSONAL = '';

export function AccountSwitcher() {
  const t = useTranslations('teams');
  const id = useId();
  const qc = useQueryClient();
  const teams = useQuery({ queryKey: TEAMS_QUERY, queryFn: () => call('GET /teams') });
  const [busy, setBusy] = useState(false);
  const view = teams.data;
  async function choose(accountId: string) {
    setBusy(true);
    try {
      await call('POST /teams/switch', { body: { accountId: accountId === PERSONAL ? null : accountId } });
      // Every page reads the account the session acts for: every cached answer is reset and the shown ones refetched.
      void qc.resetQueries();
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="flex items-center gap-2 px-2 pb-1">
      {view && view.teams.length > 0 && (
        <>
          <label htmlFor={id} className="sr-only">
            {t('switcherLabel')}
          </label>
          <select
            id={id}
            data-testid="account-switcher"
            className="min-w-0 flex-1 rounded-md border border-border bg-background px-2 py-1 text-sm"
            value={view.active?.accountId ?? PERSONAL}
            disabled={busy}
            onChange={(e) => void choose(e.target.value)}
          >
            <option value={PERSONAL}>{t('personal')}</option>
            {view.teams.map((team) => (
              <option key={team.accountId} value={team.accountId}>
                {team.name}
              </option>
            ))}
          </select>
        </>
      )}
      <Link href="/teams" data-testid="teams-link" className="shrink-0 text-xs text-muted-foreground hover:text-foreground">
        {t('manage')}
      </Link>
    </div>
  );
}

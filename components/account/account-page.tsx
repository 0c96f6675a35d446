'use client';
// The account page: who is signed in, the balances chats are paid from, how to add credit, and the user's settings
// (display name, password, language). The first tab of the Account area (components/billing/nav-links.tsx).
// data-testid: account-page, balance-usd, balance-diem, top-up-how-to, account-usage-link (settings: account-settings.tsx).
import { useQuery } from '@tanstack/react-query';
import { call, qk } from '@/components/api/client.ts';
import { useMe } from '@/components/session/use-me.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import type { AccountSummary } from '@/lib/wire.ts';
import { AddCredit } from '@/components/account/add-credit.tsx';
import { AccountSettings } from '@/components/account/account-settings.tsx';
import { ImportChats } from '@/components/account/import-chats.tsx';
import { SharedLinks } from '@/components/share/shared-links.tsx';
import { BalanceCard } from '@/components/account/balance-card.tsx';
import { DiemInfo } from '@/components/account/diem-info.tsx';
import dynamic from 'next/dynamic';
import { useTranslations } from 'use-intl';
import { DashPage } from '@/components/billing/dash-page.tsx';
import { LanguageSettings } from '@/components/account/language-settings.tsx';
import Link from 'next/link';
import { useFormat } from '@/components/i18n/format.ts';

// Wallet code (wagmi, viem, the x402 client) is downloaded only by users who signed in with a wallet.
const WalletTopUp = dynamic(() => import('@/components/wallet/wallet-top-up.tsx'), {
  ssr: false,
  loading: () => <TopUpLoading />,
});

function TopUpLoading() {
  return <Spinner label={useTranslations('account')('loadingTopUp')} className="size-5" />;
}

function useDiemNote(): (a: AccountSummary) => string {
  const t = useTranslations('account');
  const fmt = useFormat();
  return (a) => {
    const parts = [t('diemFirst')];
    if (a.diemDailyAllowance) parts.push(t('diemAllowance', { amount: fmt.diemBalance(a.diemDailyAllowance) }));
    const at = a.diemResetsAt ? new Date(a.diemResetsAt) : null;
    if (at && !Number.isNaN(at.getTime())) parts.push(t('diemRefills', { when: fmt.dateTime(at, { weekday: 'short', hour: 'numeric', minute: '2-digit' }) }));
    return parts.join(' ');
  };
}

export function AccountPage() {
  const t = useTranslations('account');
  const fmt = useFormat();
  const diemNote = useDiemNote();
  const me = useMe();
  const account = useQuery({
    queryKey: qk.account,
    queryFn: ({ signal }) => call('GET /account', { signal }),
    refetchOnWindowFocus: true,
  });
  const user = me.data?.user;

  return (
    <DashPage
      title={t('title')}
      narrow
      current="/account"
      testId="account-page"
      description={
        user && (
          <>
            {user.displayName ? `${user.displayName} · ` : ''}
            {user.wallet ? t('wallet', { chain: user.wallet.chain === 'evm' ? 'Base' : 'Solana', address: user.wallet.address }) : (user.email ?? t('noEmail'))}
            {user.isAdmin ? ` · ${t('administrator')}` : ''}
            {` · ${t('memberSince', { date: fmt.date(user.createdAt, { year: 'numeric', month: 'long', day: 'numeric' }) })}`}
          </>
        )
      }
    >
      {account.isPending ? (
        <div className="flex justify-center py-10 text-muted-foreground">
          <Spinner label={t('loadingBalances')} className="size-6" />
        </div>
      ) : account.isError ? (
        <Alert
          title={t('failed')}
          action={
            <Button size="sm" variant="secondary" onClick={() => void account.refetch()} pending={account.isFetching}>
              {t('retry')}
            </Button>
          }
        >
          {account.error.message}
        </Alert>
      ) : (
        <>
          <section aria-labelledby="balances-heading">
            <h2 id="balances-heading" className="mb-3 text-lg font-semibold">
              {t('balances')}
            </h2>
            <dl className="grid grid-cols-1 gap-4 sm:grid-cols-2">
              <BalanceCard label={t('usd')} value={fmt.usdBalance(account.data.balances.usd)} note={t('usdNote')} testId="balance-usd" />
              <BalanceCard
                label={t('diem')}
                info={<DiemInfo />}
                value={fmt.diemBalance(account.data.balances.diem)}
                note={diemNote(account.data)}
                testId="balance-diem"
              />
            </dl>
            <p className="mt-3 text-sm text-muted-foreground">
              {t('perAnswer')}{' '}
              <Link href="/usage" className="font-medium text-primary underline-offset-4 hover:underline" data-testid="account-usage-link">
                {t('usageLink')}
              </Link>
            </p>
          </section>
          {user?.wallet && account.data.topUp.wallet ? <WalletTopUp wallet={user.wallet} /> : <AddCredit topUp={account.data.topUp} />}
        </>
      )}
      {user && <AccountSettings user={user} />}
      <LanguageSettings />
      <section aria-labelledby="data-heading">
        <h2 id="data-heading" className="mb-2 text-lg font-semibold">
          {t('yourData')}
        </h2>
        <p className="text-sm text-muted-foreground">
          {t('chatDownloads')}{' '}
          <a
            href="/api/app/conversations/archive"
            download
            data-testid="account-chats-archive"
            className="font-medium text-primary underline-offset-4 hover:underline"
          >
            {t('chatsArchive')}
          </a>
          .{' '}
          <a
            href="/api/app/memories/export"
            download
            data-testid="account-memories-export"
            className="font-medium text-primary underline-offset-4 hover:underline"
          >
            {t('memoriesExport')}
          </a>
          {t('memoriesManage')}{' '}
          <Link href="/memory" className="font-medium text-primary underline-offset-4 hover:underline">
            {t('memoryPage')}
          </Link>
          .
        </p>
        <ImportChats />
      </section>
      <SharedLinks />
    </DashPage>
  );
}

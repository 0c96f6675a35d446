'use client';
// The account page: who is signed in, the balances chats are paid from, how to add credit, and the user's settings
// (display name, password).
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
import { formatDiem, formatUsd } from '@/components/account/format-balance.ts';
import dynamic from 'next/dynamic';
import Link from 'next/link';

// Wallet code (wagmi, viem, the x402 client) is downloaded only by users who signed in with a wallet.
const WalletTopUp = dynamic(() => import('@/components/wallet/wallet-top-up.tsx'), {
  ssr: false,
  loading: () => <Spinner label="Loading top-up" className="size-5" />,
});

function diemNote(a: AccountSummary): string {
  const parts = ['Spent before USD.'];
  if (a.diemDailyAllowance) parts.push(`Daily allowance: ${formatDiem(a.diemDailyAllowance)} DIEM.`);
  const at = a.diemResetsAt ? new Date(a.diemResetsAt) : null;
  if (at && !Number.isNaN(at.getTime())) parts.push(`Refills ${at.toLocaleString(undefined, { weekday: 'short', hour: 'numeric', minute: '2-digit' })}.`);
  return parts.join(' ');
}

export function AccountPage() {
  const me = useMe();
  const account = useQuery({
    queryKey: qk.account,
    queryFn: ({ signal }) => call('GET /account', { signal }),
    refetchOnWindowFocus: true,
  });
  const user = me.data?.user;

  return (
    <div className="flex-1 overflow-y-auto" data-testid="account-page">
      <div className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-6 sm:px-6 sm:py-8">
        <header>
          <h1 className="text-2xl font-semibold tracking-tight">Account</h1>
          {user && (
            <p className="mt-1 text-sm text-muted-foreground">
              {user.displayName ? `${user.displayName} · ` : ''}
              {user.wallet ? `${user.wallet.chain === 'evm' ? 'Base' : 'Solana'} wallet ${user.wallet.address}` : (user.email ?? 'No email')}
              {user.isAdmin ? ' · Administrator' : ''}
              {` · Member since ${new Date(user.createdAt).toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' })}`}
            </p>
          )}
        </header>
        {account.isPending ? (
          <div className="flex justify-center py-10 text-muted-foreground">
            <Spinner label="Loading your balances" className="size-6" />
          </div>
        ) : account.isError ? (
          <Alert
            title="Could not load your account"
            action={
              <Button size="sm" variant="secondary" onClick={() => void account.refetch()} pending={account.isFetching}>
                Retry
              </Button>
            }
          >
            {account.error.message}
          </Alert>
        ) : (
          <>
            <section aria-labelledby="balances-heading">
              <h2 id="balances-heading" className="mb-3 text-lg font-semibold">
                Balances
              </h2>
              <dl className="grid grid-cols-1 gap-4 sm:grid-cols-2">
                <BalanceCard
                  label="USD"
                  value={formatUsd(account.data.balances.usd)}
                  note="Paid credit, used once the DIEM allowance is spent."
                  testId="balance-usd"
                />
                <BalanceCard
                  label="DIEM"
                  info={<DiemInfo />}
                  value={formatDiem(account.data.balances.diem)}
                  note={diemNote(account.data)}
                  testId="balance-diem"
                />
              </dl>
              <p className="mt-3 text-sm text-muted-foreground">
                Each answer in a chat shows its tokens and what it cost.{' '}
                <Link href="/usage" className="font-medium text-primary underline-offset-4 hover:underline" data-testid="account-usage-link">
                  See your usage, spend and rate limits
                </Link>
              </p>
            </section>
            {user?.wallet && account.data.topUp.wallet ? <WalletTopUp wallet={user.wallet} /> : <AddCredit topUp={account.data.topUp} />}
          </>
        )}
        {user && <AccountSettings user={user} />}
        <section aria-labelledby="data-heading">
          <h2 id="data-heading" className="mb-2 text-lg font-semibold">
            Your data
          </h2>
          <p className="text-sm text-muted-foreground">
            Each chat downloads from its menu in the sidebar (Markdown or JSON).{' '}
            <a
              href="/api/app/conversations/archive"
              download
              data-testid="account-chats-archive"
              className="font-medium text-primary underline-offset-4 hover:underline"
            >
              Download all your chats (zip: each as JSON with every branch, and as Markdown)
            </a>
            .{' '}
            <a
              href="/api/app/memories/export"
              download
              data-testid="account-memories-export"
              className="font-medium text-primary underline-offset-4 hover:underline"
            >
              Download your memories (JSON)
            </a>
            , or manage them on the{' '}
            <Link href="/memory" className="font-medium text-primary underline-offset-4 hover:underline">
              Memory page
            </Link>
            .
          </p>
          <ImportChats />
        </section>
        <SharedLinks />
      </div>
    </div>
  );
}

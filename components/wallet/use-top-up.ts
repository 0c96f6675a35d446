'use client';
// A top-up from the signed-in wallet: the server's payment requirements for the amount, the x402 payment signed in
// the wallet (reconnecting the wallet used to sign in), then the server verifies, settles and credits it once.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call, qk } from '@/components/api/client.ts';
import { connectWallet } from '@/components/wallet/wallets.ts';
import { REMEMBERED_WALLET, type WalletOption } from '@/components/wallet/types.ts';
import type { WalletChain, WalletTopUpRequest } from '@/lib/wire.ts';
import { WalletProblem } from '@/components/wallet/wallet-errors.ts';

export function rememberedWallet(chain: WalletChain, options: WalletOption[]): WalletOption | undefined {
  let key: string | undefined;
  try {
    const saved = JSON.parse(localStorage.getItem(REMEMBERED_WALLET) ?? 'null') as { key?: string; chain?: string } | null;
    if (saved?.chain === chain) key = saved.key;
  } catch {
    key = undefined;
  }
  const mine = options.filter((o) => o.chain === chain);
  return mine.find((o) => o.key === key) ?? mine[0];
}

export interface TopUpInput {
  amountUsd: string;
  option: WalletOption;
  /** The signed-in wallet: the wallet must pay from this account. */
  address: string;
}

export function useTopUp() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ amountUsd, option, address }: TopUpInput) => {
      const wallet = await connectWallet(option);
      const same = wallet.chain === 'evm' ? wallet.address.toLowerCase() === address.toLowerCase() : wallet.address === address;
      if (!same) throw new WalletProblem('switchAccount', { address });
      const required = await call('GET /wallet/top-up/requirements', { query: { chain: wallet.chain, amount: amountUsd } });
      const payment = await wallet.signPayment(required);
      const body: WalletTopUpRequest = { payment };
      return call('POST /wallet/top-up', { body });
    },
    onSettled: () => qc.invalidateQueries({ queryKey: qk.account }),
  });
}

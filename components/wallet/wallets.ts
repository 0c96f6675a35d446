// One list of the wallets this browser offers, EVM and Solana, and connecting to one of them.
import { useEffect, useState } from 'react';
import { connectEvm, watchEvmWallets } from '@/components/wallet/evm.ts';
import { connectSolana, watchSolanaWallets } from '@/components/wallet/solana.ts';
import type { ConnectedWallet, WalletOption } from '@/components/wallet/types.ts';

/** Wallets as they announce themselves (some inject late, so the list keeps updating). */
export function useWalletOptions(): WalletOption[] {
  const [evm, setEvm] = useState<WalletOption[]>([]);
  const [sol, setSol] = useState<WalletOption[]>([]);
  useEffect(() => {
    const offEvm = watchEvmWallets(setEvm);
    const offSol = watchSolanaWallets(setSol);
    return () => {
      offEvm();
      offSol();
    };
  }, []);
  return [...evm, ...sol];
}

export const connectWallet = (o: WalletOption): Promise<ConnectedWallet> => (o.chain === 'evm' ? connectEvm(o) : connectSolana(o));

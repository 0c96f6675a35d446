// The wallet half of Sign-In-With-X, shared by signing in and by linking a wallet in Settings: connect the chosen
// wallet, fetch the server's challenge for its address, and sign the challenge text in the wallet.
import { call } from '@/components/api/client.ts';
import { connectWallet } from '@/components/wallet/wallets.ts';
import type { WalletOption } from '@/components/wallet/types.ts';
import type { WalletSignInRequest } from '@/lib/wire.ts';

export async function signedChallenge(option: WalletOption): Promise<WalletSignInRequest> {
  const wallet = await connectWallet(option);
  const challenge = await call('GET /wallet/challenge', { query: { chain: wallet.chain, address: wallet.address } });
  const signature = await wallet.signMessage(challenge.message);
  return { payload: { ...challenge.fields, signature } };
}

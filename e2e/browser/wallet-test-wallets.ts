// Test wallets injected into the page, with their keys kept in the test process: an EIP-1193 provider announced over
// EIP-6963 (what wagmi discovers) and a wallet-standard Solana wallet (what Solana apps discover). Signing crosses
// to Node through context.exposeBinding; `reject` makes the next signature fail as a user's "Reject" does (4001).
// The Solana wallet signs messages (sign-in) and transactions (top-up: its signature added, nothing else changed).
import type { BrowserContext, Page } from 'playwright-core';
import { getTransactionDecoder, getTransactionEncoder, type SignatureBytes } from '@solana/kit';
import type { Hex, LocalAccount } from 'viem';
import nacl from 'tweetnacl';
import { base58 } from '@scure/base';
import { until } from './support/wait.ts';

export interface TestWallets {
  evm: LocalAccount;
  solana: { address: string; secretKey: Uint8Array };
  /** Set to refuse the next signing request. */
  reject: { next: boolean };
}

export async function injectTestWallets(context: BrowserContext, evm: LocalAccount): Promise<TestWallets> {
  const sol = nacl.sign.keyPair();
  const wallets: TestWallets = { evm, solana: { address: base58.encode(sol.publicKey), secretKey: sol.secretKey }, reject: { next: false } };
  const refused = () => {
    if (!wallets.reject.next) return false;
    wallets.reject.next = false;
    return true;
  };
  await context.exposeBinding('__e2eEvmSign', async (_src, method: string, params: unknown[]) => {
    if (refused()) return { rejected: true };
    if (method === 'personal_sign') {
      const msg = params[0] as string;
      // Wallets read a 0x-prefixed personal_sign argument as the bytes it encodes (viem sends text that way).
      return { result: await evm.signMessage({ message: /^0x[0-9a-f]*$/i.test(msg) ? { raw: msg as Hex } : msg }) };
    }
    if (method === 'eth_signTypedData_v4') {
      const typed = JSON.parse(params[1] as string);
      delete typed.types.EIP712Domain;
      return { result: await evm.signTypedData(typed) };
    }
    throw new Error(`unsupported ${method}`);
  });
  await context.exposeBinding('__e2eSolSign', async (_src, bytes: number[]) => {
    if (refused()) return { rejected: true };
    return { result: Array.from(nacl.sign.detached(Uint8Array.from(bytes), sol.secretKey)) };
  });
  await context.exposeBinding('__e2eSolSignTx', async (_src, bytes: number[]) => {
    if (refused()) return { rejected: true };
    const tx = getTransactionDecoder().decode(Uint8Array.from(bytes));
    if (!(wallets.solana.address in tx.signatures)) throw new Error('the transaction does not ask this wallet to sign');
    const signature = nacl.sign.detached(new Uint8Array(tx.messageBytes), sol.secretKey) as SignatureBytes;
    return { result: Array.from(getTransactionEncoder().encode({ ...tx, signatures: { ...tx.signatures, [wallets.solana.address]: signature } })) };
  });
  await context.addInitScript(
    ({ evmAddr, solAddr, solPk }) => {
      const w = window as unknown as Record<string, (...a: unknown[]) => Promise<{ result?: unknown; rejected?: boolean }>>;
      const reject = () => Object.assign(new Error('User rejected the request.'), { code: 4001 });
      const provider = {
        on() {},
        removeListener() {},
        async request({ method, params }: { method: string; params?: unknown[] }) {
          if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [evmAddr];
          if (method === 'eth_chainId') return '0x2105';
          if (method === 'wallet_switchEthereumChain' || method === 'wallet_requestPermissions') return null;
          if (method === 'personal_sign' || method === 'eth_signTypedData_v4') {
            const r = await w.__e2eEvmSign(method, params);
            if (r.rejected) throw reject();
            return r.result;
          }
          throw Object.assign(new Error(`Unsupported ${method}`), { code: 4200 });
        },
      };
      const icon = "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 8 8'><rect width='8' height='8' fill='%230a7'/></svg>";
      const info = { uuid: '00000000-0000-4000-8000-000000000001', name: 'E2E Test Wallet', icon, rdns: 'test.e2e.wallet' };
      const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }));
      window.addEventListener('eip6963:requestProvider', announce);
      announce();

      const account = {
        address: solAddr,
        publicKey: Uint8Array.from(solPk),
        chains: ['solana:mainnet'],
        features: ['solana:signMessage', 'solana:signTransaction'],
      };
      const wallet = {
        version: '1.0.0',
        name: 'E2E Solana Wallet',
        icon,
        chains: ['solana:mainnet', 'solana:devnet'],
        accounts: [account],
        features: {
          'standard:connect': { version: '1.0.0', connect: async () => ({ accounts: [account] }) },
          'standard:disconnect': { version: '1.0.0', disconnect: async () => {} },
          'standard:events': { version: '1.0.0', on: () => () => {} },
          'solana:signMessage': {
            version: '1.0.0',
            signMessage: async (...inputs: { message: Uint8Array }[]) =>
              Promise.all(
                inputs.map(async (i) => {
                  const r = await w.__e2eSolSign(Array.from(i.message));
                  if (r.rejected) throw reject();
                  return { signedMessage: i.message, signature: Uint8Array.from(r.result as number[]) };
                }),
              ),
          },
          'solana:signTransaction': {
            version: '1.0.0',
            supportedTransactionVersions: ['legacy', 0],
            signTransaction: async (...inputs: { transaction: Uint8Array }[]) =>
              Promise.all(
                inputs.map(async (i) => {
                  const r = await w.__e2eSolSignTx(Array.from(i.transaction));
                  if (r.rejected) throw reject();
                  return { signedTransaction: Uint8Array.from(r.result as number[]) };
                }),
              ),
          },
        },
      };
      const register = ({ register }: { register: (w: unknown) => void }) => register(wallet);
      window.addEventListener('wallet-standard:app-ready', (e) => register((e as CustomEvent).detail));
      const ev = new Event('wallet-standard:register-wallet');
      Object.defineProperty(ev, 'detail', { value: register });
      window.dispatchEvent(ev);
    },
    { evmAddr: evm.address, solAddr: wallets.solana.address, solPk: Array.from(sol.publicKey) },
  );
  return wallets;
}

/** Signs in on /sign-in with the injected test wallet (injectTestWallets) and waits for the chat page. */
export async function signInWithTestWallet(page: Page): Promise<void> {
  await page.goto('/sign-in');
  await page.getByTestId('wallet-continue').click();
  await page.getByTestId('wallet-option').filter({ hasText: 'E2E Test Wallet' }).click();
  await until(() => new URL(page.url()).pathname === '/', 'the chat page after signing in');
}

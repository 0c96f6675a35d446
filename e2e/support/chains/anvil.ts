// A local EVM chain for the wallet tests: anvil (from the npm @foundry-rs/anvil package) on 127.0.0.1 with chain id
// 8453, a test USDC (EIP-3009) at the real Base USDC address, Multicall3 at its usual address, and the contracts of
// x402's `upto` scheme (Permit2 and the upto proxy, permit2.ts) at theirs, so the server's production payment
// requirements work unchanged. One chain per test file; it stops with the file.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Abi,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  type Hex,
  type LocalAccount,
  http,
  parseGwei,
  publicActions,
  type PublicClient,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { BASE_MAINNET } from '../../../lib/wallet/networks.ts';
import { PERMIT2, permit2Deployment, UPTO_PROXY } from './permit2.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const ANVIL = process.env.ANVIL_BIN ?? path.resolve(here, '../../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil');
const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11';

export type ContractName = 'TestUSDC' | 'MiniMulticall3' | 'TestWallet' | 'TestWalletFactory' | 'TestUptoPermit2Proxy';
export const CONTRACTS: Record<ContractName, { abi: Abi; bytecode: Hex; deployedBytecode: Hex }> = JSON.parse(
  fs.readFileSync(path.join(here, 'contracts.json'), 'utf8'),
).contracts;

// anvil's well-known development keys: account 0 deploys and mints, account 1 is the facilitator's hot wallet.
export const DEPLOYER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const FACILITATOR_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

export const USDC = BASE_MAINNET.usdc as Hex;

export interface Anvil {
  rpcUrl: string;
  publicClient: PublicClient;
  /** Mints test USDC (units: 6 decimals). */
  mint(to: string, amount: bigint): Promise<void>;
  usdcBalance(of: string): Promise<bigint>;
  deploy(name: ContractName, args?: unknown[]): Promise<Hex>;
  /** Sends a transaction from the deployer (e.g. a third party submitting an authorization first). */
  write(args: { address: Hex; abi: Abi; functionName: string; args: unknown[] }): Promise<Hex>;
  /** Sends a transaction from `account` (given gas money first), and waits for its success. */
  send(account: LocalAccount, tx: { to: Hex; data: Hex }): Promise<Hex>;
  /** Moves the chain's clock (the token checks validBefore against block time). */
  increaseTime(seconds: number): Promise<void>;
  close(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

/** A bare anvil process (no contracts deployed), answering on its rpcUrl; the caller stops it. */
export async function spawnAnvil(): Promise<{ proc: ChildProcess; rpcUrl: string }> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const proc = spawn(ANVIL, ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(BASE_MAINNET.chainId), '--silent'], { stdio: 'ignore' });
    const rpcUrl = `http://127.0.0.1:${port}`;
    const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) });
    for (let i = 0; i < 200 && proc.exitCode === null; i++) {
      try {
        await client.getChainId();
        return { proc, rpcUrl };
      } catch {
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    proc.kill();
    if (attempt >= 2) throw new Error(`anvil did not start (${ANVIL})`);
  }
}

/** Stops a spawnAnvil process that is still running (SIGTERM) and waits until it has exited. */
export async function stopSpawnedAnvil(anvil: { proc: ChildProcess } | undefined): Promise<void> {
  if (anvil && anvil.proc.exitCode === null) {
    const exited = new Promise((r) => anvil.proc.once('exit', r));
    anvil.proc.kill('SIGTERM');
    await exited;
  }
}

/** A signed EIP-1559 transaction on chain 8453 sending `value` wei from `sender` (at `nonce`) to the dead address. */
export function signDeadTransfer(sender: PrivateKeyAccount, nonce: number, value = 1n): Promise<Hex> {
  return sender.signTransaction({
    chainId: 8453,
    type: 'eip1559',
    to: '0x000000000000000000000000000000000000dEaD',
    value,
    nonce,
    gas: 21_000n,
    maxFeePerGas: parseGwei('20'),
    maxPriorityFeePerGas: parseGwei('1'),
  });
}

export async function startAnvil(): Promise<Anvil> {
  const { proc, rpcUrl } = await spawnAnvil();
  const chain = defineChain({
    id: BASE_MAINNET.chainId,
    name: 'base-local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) }) as PublicClient;
  const testClient = createTestClient({ chain, mode: 'anvil', transport: http(rpcUrl) });
  const deployer = createWalletClient({ account: privateKeyToAccount(DEPLOYER_KEY), chain, transport: http(rpcUrl) }).extend(publicActions);

  const deploy = async (name: ContractName, args: unknown[] = []): Promise<Hex> => {
    const hash = await deployer.deployContract({ abi: CONTRACTS[name].abi, bytecode: CONTRACTS[name].bytecode, args });
    const { contractAddress } = await deployer.waitForTransactionReceipt({ hash });
    return contractAddress!;
  };
  const write = async (a: { address: Hex; abi: Abi; functionName: string; args: unknown[] }): Promise<Hex> => {
    const hash = await deployer.writeContract(a as Parameters<typeof deployer.writeContract>[0]);
    await deployer.waitForTransactionReceipt({ hash });
    return hash;
  };
  // The runtime code of a deployed instance, not solc's deployedBytecode: the latter has the EIP-712 immutables zeroed.
  const token = await deploy('TestUSDC');
  await testClient.setCode({ address: USDC, bytecode: (await publicClient.getCode({ address: token }))! });
  await testClient.setCode({ address: MULTICALL3, bytecode: CONTRACTS.MiniMulticall3.deployedBytecode });
  const usdc = { address: USDC, abi: CONTRACTS.TestUSDC.abi };
  // x402 upto: Permit2 deployed as on public chains; the proxy has no constructor, so its runtime code is all it needs.
  await deployer.waitForTransactionReceipt({ hash: await deployer.sendTransaction(permit2Deployment()) });
  if (!(await publicClient.getCode({ address: PERMIT2 }))) throw new Error('Permit2 was not deployed at its canonical address');
  await testClient.setCode({ address: UPTO_PROXY, bytecode: CONTRACTS.TestUptoPermit2Proxy.deployedBytecode });

  const send = async (account: LocalAccount, tx: { to: Hex; data: Hex }): Promise<Hex> => {
    await testClient.setBalance({ address: account.address, value: 10n ** 18n });
    const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
    const hash = await wallet.sendTransaction(tx);
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return hash;
  };

  return {
    rpcUrl,
    publicClient,
    async mint(to, amount) {
      await write({ ...usdc, functionName: 'mint', args: [to, amount] });
    },
    async usdcBalance(of) {
      return (await publicClient.readContract({ ...usdc, functionName: 'balanceOf', args: [of] })) as bigint;
    },
    deploy,
    write,
    send,
    async increaseTime(seconds) {
      await testClient.increaseTime({ seconds });
      await testClient.mine({ blocks: 1 });
    },
    async close() {
      if (proc.exitCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

// The x402 facilitator: the party that verifies a signed payment and puts it on chain. By default it runs in this
// process (the published @x402 EVM and Solana schemes: `exact`, and on EVM `upto` where its contracts are configured)
// against the RPC endpoints and hot wallets in configuration;
// LAGOON_X402_FACILITATOR_URL selects a remote one instead. There is no public default: without either, top-ups are
// simply not offered.
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { x402Facilitator } from '@x402/core/facilitator';
import { HTTPFacilitatorClient } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { UptoEvmScheme } from '@x402/evm/upto/facilitator';
import { toFacilitatorSvmSigner } from '@x402/svm';
import { ExactSvmScheme } from '@x402/svm/exact/facilitator';
import { base58 } from '@scure/base';
import { createWalletClient, defineChain, http, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { WalletConfig } from './config.ts';
import { log } from '../log.ts';

export interface Facilitator {
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>;
  /** The Solana fee payer to name in requirements (the facilitator's own key), when Solana is served. */
  solanaFeePayer(): Promise<string | undefined>;
  /**
   * The address that settles EVM `upto` payments (x402's upto proxy lets only the facilitator the payer named settle),
   * when this facilitator settles them on our EVM network.
   */
  uptoFacilitator(): Promise<string | undefined>;
}

// A settlement waits this long for its receipt before reporting it as pending.
const CONFIRMATION_TIMEOUT_MS = 60_000;

function evmSchemes(cfg: WalletConfig): { exact: ExactEvmScheme; upto: UptoEvmScheme | undefined; address: string } | undefined {
  const { rpcUrl, facilitatorKey, chainId } = cfg.evm;
  if (!rpcUrl || !facilitatorKey) return undefined;
  const chain = defineChain({
    id: chainId,
    name: `eip155:${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const account = privateKeyToAccount(facilitatorKey);
  // Base makes a block every 2 s: polling each second for the receipt keeps a top-up's wait close to that.
  const client = createWalletClient({ account, chain, pollingInterval: 1_000, transport: http(rpcUrl, { timeout: 30_000, retryCount: 1 }) }).extend(
    publicActions,
  );
  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      getCode: (a) => client.getCode(a),
      readContract: (a) => client.readContract({ ...a, args: a.args ?? [] } as Parameters<typeof client.readContract>[0]),
      verifyTypedData: (a) => client.verifyTypedData(a as Parameters<typeof client.verifyTypedData>[0]),
      writeContract: (a) => client.writeContract({ ...a, args: a.args ?? [] } as Parameters<typeof client.writeContract>[0]),
      sendTransaction: (a) => client.sendTransaction(a),
      waitForTransactionReceipt: (a) => client.waitForTransactionReceipt(a),
    },
    { confirmationTimeoutMs: CONFIRMATION_TIMEOUT_MS },
  );
  // simulateInSettle: a payment is simulated again right before it is broadcast, so one that became invalid since
  // verification fails cheaply instead of costing gas (the upto scheme always simulates before it settles).
  return {
    exact: new ExactEvmScheme(signer, { simulateInSettle: true }),
    upto: cfg.evm.uptoPermit2 ? new UptoEvmScheme(signer) : undefined,
    address: account.address,
  };
}

/** Solana's fee payer key: its address is the last 32 bytes of the 64-byte secret key. */
export const feePayerAddress = (secret: Uint8Array): string => base58.encode(secret.slice(32));

function inProcess(cfg: WalletConfig): Facilitator {
  const evm = evmSchemes(cfg);
  const { rpcUrl: solRpc, feePayerKey } = cfg.solana;
  let ready: Promise<x402Facilitator> | undefined;
  const facilitator = () =>
    (ready ??= (async () => {
      const f = new x402Facilitator();
      if (evm) f.register(cfg.evm.network as `${string}:${string}`, evm.exact);
      if (evm?.upto) f.register(cfg.evm.network as `${string}:${string}`, evm.upto);
      if (solRpc && feePayerKey) {
        const signer = await createKeyPairSignerFromBytes(feePayerKey);
        f.register(cfg.solana.network as `${string}:${string}`, new ExactSvmScheme(toFacilitatorSvmSigner(signer, { defaultRpcUrl: solRpc })));
      }
      return f;
    })());
  return {
    verify: async (p, r) => (await facilitator()).verify(p, r),
    settle: async (p, r) => (await facilitator()).settle(p, r),
    solanaFeePayer: async () => (solRpc && feePayerKey ? feePayerAddress(feePayerKey) : undefined),
    uptoFacilitator: async () => (evm?.upto ? evm.address : undefined),
  };
}

function remote(url: string, cfg: WalletConfig): Facilitator {
  const client = new HTTPFacilitatorClient({ url, timeoutMs: 120_000 });
  // What the facilitator names in its supported kinds, read once (again after a failure).
  const kindExtra = (network: string, scheme: string, field: string) => {
    let read: Promise<string | undefined> | undefined;
    return () =>
      (read ??= client.getSupported().then(
        (s) => {
          const kind = s.kinds.find((k) => k.network === network && k.scheme === scheme && typeof k.extra?.[field] === 'string');
          return kind?.extra?.[field] as string | undefined;
        },
        (e) => {
          read = undefined; // ask again next time
          log.warn(`x402: the facilitator's supported kinds could not be read: ${(e as Error).message}`);
          return undefined;
        },
      ));
  };
  const uptoFacilitator = kindExtra(cfg.evm.network, 'upto', 'facilitatorAddress');
  return {
    verify: (p, r) => client.verify(p, r),
    settle: (p, r) => client.settle(p, r),
    solanaFeePayer: kindExtra(cfg.solana.network, 'exact', 'feePayer'),
    uptoFacilitator: async () => (cfg.evm.uptoPermit2 ? uptoFacilitator() : undefined),
  };
}

export function createFacilitator(cfg: WalletConfig): Facilitator | undefined {
  if (cfg.facilitatorUrl) return remote(cfg.facilitatorUrl, cfg);
  if (!cfg.rails.evm && !cfg.rails.solana) return undefined;
  return inProcess(cfg);
}

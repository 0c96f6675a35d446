// The x402 facilitator: the party that verifies a signed payment and puts it on chain. By default it runs in this
// process (the published @x402 EVM and Solana schemes) against the RPC endpoints and hot wallets in configuration;
// LAGOON_X402_FACILITATOR_URL selects a remote one instead. There is no public default: without either, top-ups are
// simply not offered.
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { x402Facilitator } from '@x402/core/facilitator';
import { HTTPFacilitatorClient } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
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
}

// A settlement waits this long for its receipt before reporting it as pending.
const CONFIRMATION_TIMEOUT_MS = 60_000;

function evmScheme(cfg: WalletConfig): ExactEvmScheme | undefined {
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
  // verification fails cheaply instead of costing gas.
  return new ExactEvmScheme(signer, { simulateInSettle: true });
}

/** Solana's fee payer key: its address is the last 32 bytes of the 64-byte secret key. */
export const feePayerAddress = (secret: Uint8Array): string => base58.encode(secret.slice(32));

function inProcess(cfg: WalletConfig): Facilitator {
  const evm = evmScheme(cfg);
  const { rpcUrl: solRpc, feePayerKey } = cfg.solana;
  let ready: Promise<x402Facilitator> | undefined;
  const facilitator = () =>
    (ready ??= (async () => {
      const f = new x402Facilitator();
      if (evm) f.register(cfg.evm.network as `${string}:${string}`, evm);
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
  };
}

function remote(url: string, cfg: WalletConfig): Facilitator {
  const client = new HTTPFacilitatorClient({ url, timeoutMs: 120_000 });
  let feePayer: Promise<string | undefined> | undefined;
  return {
    verify: (p, r) => client.verify(p, r),
    settle: (p, r) => client.settle(p, r),
    solanaFeePayer() {
      feePayer ??= client.getSupported().then(
        (s) => {
          const kind = s.kinds.find((k) => k.network === cfg.solana.network && k.scheme === 'exact' && typeof k.extra?.feePayer === 'string');
          return kind?.extra?.feePayer as string | undefined;
        },
        (e) => {
          feePayer = undefined; // ask again next time
          log.warn(`x402: the facilitator's supported kinds could not be read: ${(e as Error).message}`);
          return undefined;
        },
      );
      return feePayer;
    },
  };
}

export function createFacilitator(cfg: WalletConfig): Facilitator | undefined {
  if (cfg.facilitatorUrl) return remote(cfg.facilitatorUrl, cfg);
  if (!cfg.rails.evm && !cfg.rails.solana) return undefined;
  return inProcess(cfg);
}

// Cancelling discarded auto top-up authorizations on chain. Revoking deletes the server's only copy of each signature,
// but the chain would still take one until it expires; USDC's EIP-3009 `cancelAuthorization(authorizer, nonce, v, r,
// s)` retires a nonce for good. Only the wallet can sign it (EIP-712 `CancelAuthorization(authorizer, nonce)`); the
// server submits it from the in-process facilitator's hot wallet, which pays the gas, so the wallet needs no ETH.
import { z } from 'zod';
import { createWalletClient, defineChain, http, parseAbi, parseSignature, publicActions, recoverTypedDataAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import { log } from '../log.ts';
import { MAX_AUTHORIZATIONS } from './auto-topup.ts';
import type { WalletConfig } from './config.ts';
import type { Wallet } from './wallets.ts';

const HEX32 = /^0x[0-9a-fA-F]{64}$/;

export const cancelBody = z.strictObject({
  cancellations: z
    .array(
      z.strictObject({
        nonce: z.string().regex(HEX32, 'must be 32 bytes in hex'),
        signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/, 'must be a 65-byte signature'),
      }),
    )
    .min(1)
    .max(MAX_AUTHORIZATIONS),
});
export type CancelBody = z.infer<typeof cancelBody>;

const ABI = parseAbi([
  'function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
]);

/** What the wallet signs for each nonce (EIP-712, the token's own domain). */
export function cancelTypedData(cfg: WalletConfig, authorizer: string, nonce: string) {
  return {
    domain: { name: cfg.evm.assetName, version: cfg.evm.assetVersion, chainId: cfg.evm.chainId, verifyingContract: cfg.evm.asset as `0x${string}` },
    types: {
      CancelAuthorization: [
        { name: 'authorizer', type: 'address' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'CancelAuthorization' as const,
    message: { authorizer: authorizer as `0x${string}`, nonce: nonce as `0x${string}` },
  };
}

export interface Cancelled {
  nonce: string;
  /** The cancelling transaction; null when the chain had already used or cancelled the nonce. */
  transaction: string | null;
}

/**
 * Submits the wallet's signed cancellations of its discarded authorizations (revoked or expired, never one still
 * ready, claimed or settled). Each signature is checked before any gas is spent.
 */
export async function cancelOnChain(store: Store, cfg: WalletConfig, wallet: Wallet, body: CancelBody): Promise<Cancelled[]> {
  const { rpcUrl, facilitatorKey, chainId } = cfg.evm;
  if (!cfg.rails.evm || !rpcUrl || !facilitatorKey)
    throw new ApiError('X402_NOT_CONFIGURED', 'This server does not submit cancellations (no in-process Base facilitator): cancel from the wallet itself');
  const nonces = body.cancellations.map((c) => c.nonce.toLowerCase());
  if (new Set(nonces).size !== nonces.length) throw new ApiError('INVALID_REQUEST', 'Each nonce once', { param: 'cancellations' });
  for (const c of body.cancellations) {
    const row = await store.get<{ status: string }>('SELECT status FROM auto_topup_authorizations WHERE wallet_id = $1 AND nonce = $2', [
      wallet.id,
      c.nonce.toLowerCase(),
    ]);
    if (!row) throw new ApiError('NOT_FOUND', `No auto top-up authorization of this wallet has nonce ${c.nonce}`);
    if (row.status !== 'revoked' && row.status !== 'expired')
      throw new ApiError('CONFLICT', `The authorization with nonce ${c.nonce} is ${row.status}: only discarded ones (revoke first) are cancelled`);
    const signer = await recoverTypedDataAddress({ ...cancelTypedData(cfg, wallet.address, c.nonce), signature: c.signature as `0x${string}` }).catch(() => '');
    if (signer.toLowerCase() !== wallet.address)
      throw new ApiError('INVALID_REQUEST', `The cancellation of ${c.nonce} is not signed by this wallet`, { param: 'cancellations' });
  }
  const chain = defineChain({
    id: chainId,
    name: `eip155:${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const client = createWalletClient({ account: privateKeyToAccount(facilitatorKey), chain, pollingInterval: 1_000, transport: http(rpcUrl) }).extend(
    publicActions,
  );
  const token = cfg.evm.asset as `0x${string}`;
  const out: Cancelled[] = [];
  for (const c of body.cancellations) {
    const nonce = c.nonce.toLowerCase() as `0x${string}`;
    const authorizer = wallet.address as `0x${string}`;
    let transaction: string | null = null;
    if (!(await client.readContract({ address: token, abi: ABI, functionName: 'authorizationState', args: [authorizer, nonce] }))) {
      const { r, s, v, yParity } = parseSignature(c.signature as `0x${string}`);
      const hash = await client.writeContract({
        address: token,
        abi: ABI,
        functionName: 'cancelAuthorization',
        args: [authorizer, nonce, Number(v ?? BigInt(27 + yParity)), r, s],
      });
      const receipt = await client.waitForTransactionReceipt({ hash, timeout: 60_000 });
      if (receipt.status !== 'success') throw new ApiError('SETTLEMENT_FAILED', `The cancellation of ${nonce} was reverted on chain`);
      transaction = hash;
    }
    await store.run(`UPDATE auto_topup_authorizations SET status = 'cancelled', tx_hash = $3, updated_at = $4 WHERE wallet_id = $1 AND nonce = $2`, [
      wallet.id,
      nonce,
      transaction,
      Date.now(),
    ]);
    log.info({ walletId: wallet.id, nonce, transaction }, 'auto top-up authorization cancelled on chain');
    out.push({ nonce, transaction });
  }
  return out;
}

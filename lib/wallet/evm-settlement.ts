// Finding an EIP-3009 payment that is already on chain. Anyone holding a signed authorization can submit it (a
// front-runner, or our own earlier attempt whose outcome was lost), and then our settlement fails with "nonce already
// used" although the money arrived. The token fixes `to` and `value` in the signature, so a successful transaction
// that used this (from, nonce) and moved `value` from `from` to our recipient is the payment: it is credited once.
import { parseAbi, parseEventLogs } from 'viem';
import { publicClientFor } from './signatures.ts';

const TOKEN_ABI = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

/** How far back to look: authorizations live for minutes, and Base makes a block every 2 s (about 5.5 hours). */
const LOOKBACK_BLOCKS = 10_000n;

export interface OnChainPayment {
  asset: string;
  from: string;
  to: string;
  value: string;
  nonce: string;
}

/** The hash of the transaction that carried out this exact payment, or undefined when there is none. */
export async function findSettledTransfer(rpcUrl: string, p: OnChainPayment): Promise<string | undefined> {
  const client = publicClientFor(rpcUrl);
  const asset = p.asset as `0x${string}`;
  const from = p.from as `0x${string}`;
  const nonce = p.nonce as `0x${string}`;
  const used = await client.readContract({ address: asset, abi: TOKEN_ABI, functionName: 'authorizationState', args: [from, nonce] });
  if (!used) return undefined;
  const latest = await client.getBlockNumber();
  const logs = await client.getContractEvents({
    address: asset,
    abi: TOKEN_ABI,
    eventName: 'AuthorizationUsed',
    args: { authorizer: from, nonce },
    fromBlock: latest > LOOKBACK_BLOCKS ? latest - LOOKBACK_BLOCKS : 0n,
    toBlock: latest,
  });
  for (const log of logs) {
    const receipt = await client.getTransactionReceipt({ hash: log.transactionHash });
    if (receipt.status !== 'success') continue;
    const transfers = parseEventLogs({ abi: TOKEN_ABI, eventName: 'Transfer', logs: receipt.logs });
    const paid = transfers.some(
      (t) =>
        t.address.toLowerCase() === p.asset.toLowerCase() &&
        t.args.from.toLowerCase() === p.from.toLowerCase() &&
        t.args.to.toLowerCase() === p.to.toLowerCase() &&
        t.args.value === BigInt(p.value),
    );
    if (paid) return log.transactionHash;
  }
  return undefined;
}

// Which JSON-RPC methods each network allows, at which price tier, and which change state (never sent twice). A
// method not in its network's tables is refused, as are WebSocket-only subscriptions and stateful filters (filter state
// lives on one node, and a pool of nodes behind one URL would answer "filter not found"). Tables are keyed by method
// name or by a pattern with one `*` at the start or the end (`trace_*`, `*Subscribe`); a name beats a pattern, a
// longer pattern a shorter one, and a network's extension sets (zks_*, bor_*, …) are read after its family's.
import type { NetworkSpec } from './networks.ts';

export type Tier = 'standard' | 'advanced' | 'large';
export const TIER_MULTIPLIER: Record<Tier, number> = { standard: 1, advanced: 2, large: 4 };

/** Why a method is refused: a subscription, a stateful filter, or the operator's choice. */
export type Refusal = 'websocket' | 'filter' | 'refused';

/** A table entry: a tier (`sends`: the call changes state, so it is never retried on another node), or a refusal. */
export type MethodRule = { tier: Tier; sends?: boolean } | { refused: Refusal };
export type MethodTable = Record<string, MethodRule>;

const S: MethodRule = { tier: 'standard' };
const A: MethodRule = { tier: 'advanced' };
const L: MethodRule = { tier: 'large' };
const SEND: MethodRule = { tier: 'standard', sends: true };
const WS: MethodRule = { refused: 'websocket' };
const FILTER: MethodRule = { refused: 'filter' };

const each = (rule: MethodRule, names: string[]): MethodTable => Object.fromEntries(names.map((n) => [n, rule]));

const EVM: MethodTable = {
  ...each(S, [
    'eth_blockNumber',
    'eth_call',
    'eth_chainId',
    'eth_createAccessList',
    'eth_estimateGas',
    'eth_feeHistory',
    'eth_gasPrice',
    'eth_blobBaseFee',
    'eth_getBalance',
    'eth_getBlockByHash',
    'eth_getBlockByNumber',
    'eth_getBlockReceipts',
    'eth_getBlockTransactionCountByHash',
    'eth_getBlockTransactionCountByNumber',
    'eth_getCode',
    'eth_getLogs',
    'eth_getProof',
    'eth_getStorageAt',
    'eth_getTransactionByBlockHashAndIndex',
    'eth_getTransactionByBlockNumberAndIndex',
    'eth_getTransactionByHash',
    'eth_getTransactionCount',
    'eth_getTransactionReceipt',
    'eth_getUncleByBlockHashAndIndex',
    'eth_getUncleByBlockNumberAndIndex',
    'eth_getUncleCountByBlockHash',
    'eth_getUncleCountByBlockNumber',
    'eth_maxPriorityFeePerGas',
    'eth_protocolVersion',
    'eth_simulateV1',
    'eth_syncing',
    'net_listening',
    'net_peerCount',
    'net_version',
    'web3_clientVersion',
    'web3_sha3',
    // ERC-4337 bundler reads.
    'eth_estimateUserOperationGas',
    'eth_getUserOperationByHash',
    'eth_getUserOperationReceipt',
    'eth_supportedEntryPoints',
  ]),
  ...each(SEND, ['eth_sendRawTransaction', 'eth_sendRawTransactionConditional', 'eth_sendUserOperation']),
  ...each(A, [
    'debug_getBadBlocks',
    'debug_getRawBlock',
    'debug_getRawHeader',
    'debug_getRawReceipts',
    'debug_getRawTransaction',
    'debug_storageRangeAt',
    'debug_traceBlock',
    'debug_traceBlockByHash',
    'debug_traceBlockByNumber',
    'debug_traceCall',
    'debug_traceTransaction',
    'trace_block',
    'trace_call',
    'trace_callMany',
    'trace_filter',
    'trace_get',
    'trace_rawTransaction',
    'trace_transaction',
    'txpool_inspect',
    'txpool_status',
  ]),
  ...each(L, ['trace_replayBlockTransactions', 'trace_replayTransaction', 'txpool_content']),
  ...each(WS, ['eth_subscribe', 'eth_unsubscribe']),
  ...each(FILTER, [
    'eth_newFilter',
    'eth_newBlockFilter',
    'eth_newPendingTransactionFilter',
    'eth_getFilterChanges',
    'eth_getFilterLogs',
    'eth_uninstallFilter',
  ]),
};

const SOLANA: MethodTable = {
  ...each(S, [
    'getAccountInfo',
    'getBalance',
    'getBlock',
    'getBlockCommitment',
    'getBlockHeight',
    'getBlockProduction',
    'getBlockTime',
    'getBlocks',
    'getBlocksWithLimit',
    'getClusterNodes',
    'getEpochInfo',
    'getEpochSchedule',
    'getFeeForMessage',
    'getFirstAvailableBlock',
    'getGenesisHash',
    'getHealth',
    'getHighestSnapshotSlot',
    'getIdentity',
    'getInflationGovernor',
    'getInflationRate',
    'getInflationReward',
    'getLatestBlockhash',
    'getLeaderSchedule',
    'getMaxRetransmitSlot',
    'getMaxShredInsertSlot',
    'getMinimumBalanceForRentExemption',
    'getMultipleAccounts',
    'getRecentPerformanceSamples',
    'getRecentPrioritizationFees',
    'getSignatureStatuses',
    'getSignaturesForAddress',
    'getSlot',
    'getSlotLeader',
    'getSlotLeaders',
    'getStakeMinimumDelegation',
    'getTokenAccountBalance',
    'getTokenAccountsByDelegate',
    'getTokenAccountsByOwner',
    'getTokenLargestAccounts',
    'getTokenSupply',
    'getTransaction',
    'getTransactionCount',
    'getVersion',
    'getVoteAccounts',
    'isBlockhashValid',
    'minimumLedgerSlot',
    'simulateTransaction',
  ]),
  sendTransaction: SEND,
  // Scans every account a program owns: priced like a trace.
  getProgramAccounts: A,
  ...each(L, ['getLargestAccounts', 'getSupply']),
  '*Subscribe': WS,
  '*Unsubscribe': WS,
};

const STARKNET: MethodTable = {
  ...each(S, [
    'starknet_blockHashAndNumber',
    'starknet_blockNumber',
    'starknet_call',
    'starknet_chainId',
    'starknet_estimateFee',
    'starknet_estimateMessageFee',
    'starknet_getBlockTransactionCount',
    'starknet_getBlockWithReceipts',
    'starknet_getBlockWithTxHashes',
    'starknet_getBlockWithTxs',
    'starknet_getClass',
    'starknet_getClassAt',
    'starknet_getClassHashAt',
    'starknet_getCompiledCasm',
    'starknet_getEvents',
    'starknet_getMessagesStatus',
    'starknet_getNonce',
    'starknet_getStateUpdate',
    'starknet_getStorageAt',
    'starknet_getStorageProof',
    'starknet_getTransactionByBlockIdAndIndex',
    'starknet_getTransactionByHash',
    'starknet_getTransactionReceipt',
    'starknet_getTransactionStatus',
    'starknet_specVersion',
    'starknet_syncing',
  ]),
  ...each(SEND, ['starknet_addDeclareTransaction', 'starknet_addDeployAccountTransaction', 'starknet_addInvokeTransaction']),
  ...each(A, ['starknet_simulateTransactions', 'starknet_traceBlockTransactions', 'starknet_traceTransaction']),
  'starknet_subscribe*': WS,
  starknet_unsubscribe: WS,
};

/** The default tables: one per family, and the chain-specific namespaces networks add as extensions. */
export const DEFAULT_METHOD_SETS: Record<string, MethodTable> = {
  evm: EVM,
  solana: SOLANA,
  starknet: STARKNET,
  zksync: { 'zks_*': S },
  linea: { 'linea_*': S },
  polygon: { 'bor_*': S },
  arbitrum: { 'arbtrace_*': A, 'arbtrace_replay*': L },
};

function matches(pattern: string, method: string): boolean {
  if (pattern.endsWith('*')) return method.startsWith(pattern.slice(0, -1)) && method.length >= pattern.length;
  if (pattern.startsWith('*')) return method.endsWith(pattern.slice(1)) && method.length >= pattern.length;
  return false;
}

/** A method name as JSON-RPC nodes spell them (so a name can never look like a pattern). */
export const METHOD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,127}$/;

/** The rule for `method` (a METHOD_NAME) on a network, or undefined when its tables do not list it (refused). */
export function ruleFor(sets: Record<string, MethodTable>, network: NetworkSpec, method: string): MethodRule | undefined {
  const tables = [network.family, ...network.extensions].filter((name) => Object.hasOwn(sets, name)).map((name) => sets[name]);
  let exact: MethodRule | undefined;
  for (const t of tables) if (Object.hasOwn(t, method)) exact = t[method];
  if (exact) return exact;
  let best: { length: number; rule: MethodRule } | undefined;
  for (const t of tables) {
    for (const [pattern, rule] of Object.entries(t)) {
      if (pattern.includes('*') && matches(pattern, method) && (!best || pattern.length >= best.length)) best = { length: pattern.length, rule };
    }
  }
  return best?.rule;
}

/** Why a method is refused, in words a client can act on. */
export function refusalReason(rule: MethodRule | undefined, networkSlug: string): string {
  if (!rule) return `not available on ${networkSlug}`;
  if (!('refused' in rule)) return 'allowed';
  switch (rule.refused) {
    case 'websocket':
      return 'subscriptions need a WebSocket; this endpoint is HTTP only';
    case 'filter':
      return 'filter methods keep state on one node and break behind a pool of nodes; poll eth_getLogs or eth_getBlockByNumber instead';
    case 'refused':
      return `not available on ${networkSlug}`;
  }
}

// The JSON-RPC proxy on Solana (LiteSVM behind the loopback JSON-RPC shim): @solana/kit's createSolanaRpc, unmodified
// but for its Authorization header, reads accounts and sends a token transfer through the proxy; the transfer sent
// again with the same Idempotency-Key is replayed, not resent; Solana calls cost 30 credits, an error 5; subscriptions
// and EVM calls are refused.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  appendTransactionMessageInstruction,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { findAssociatedTokenPda, getTransferInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { type Solana, SOLANA_USDC, startSolana } from '../support/chains/solana.ts';
import { type Harness, post, startHarness } from '../support/harness.ts';

let solana: Solana;
let h: Harness;
before(async () => {
  solana = await startSolana();
  h = await startHarness({ env: { LAGOON_RPC_UPSTREAMS: `solana-mainnet=${solana.rpcUrl}`, LAGOON_RPC_HEALTH_INTERVAL_MS: '600000' } });
});
after(async () => {
  await h?.close();
  await solana?.close();
});

const url = () => `${h.base}/crypto/rpc/solana-mainnet`;
const usage = (accountId: string) =>
  h.svc.store.all<{ quantity: number; model_id: string }>('SELECT quantity, model_id FROM usage WHERE account_id = $1 ORDER BY created_at', [accountId]);

test('@solana/kit reads accounts and sends a transfer through the proxy; a retry with the same Idempotency-Key is replayed', async () => {
  const { accountId, key } = await h.newAccount({ usd: 1 });
  const rpc = createSolanaRpc(url(), { headers: { Authorization: `Bearer ${key}` } });
  const payer = await generateKeyPairSigner();
  solana.svm.airdrop(payer.address as never, lamports(2_000_000_000n) as never);
  const { value: balance } = await rpc.getBalance(payer.address).send();
  assert.equal(balance, 2_000_000_000n);
  const mint = await rpc.getAccountInfo(SOLANA_USDC, { encoding: 'base64' }).send();
  assert.equal(mint.value?.owner, TOKEN_PROGRAM_ADDRESS);

  const receiver = (await generateKeyPairSigner()).address;
  await solana.fund(payer.address, 5_000n);
  await solana.fund(receiver, 0n);
  const [source] = await findAssociatedTokenPda({ mint: SOLANA_USDC, owner: payer.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const [destination] = await findAssociatedTokenPda({ mint: SOLANA_USDC, owner: receiver, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const { value: lifetime } = await rpc.getLatestBlockhash().send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstruction(getTransferInstruction({ source, destination, authority: payer, amount: 1_000n }), m),
  );
  const wire = getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(message));
  const keyed = createSolanaRpc(url(), { headers: { Authorization: `Bearer ${key}`, 'Idempotency-Key': 'sol-transfer-1' } });
  const signature = await keyed.sendTransaction(wire, { encoding: 'base64' }).send();
  // The same transaction again would be refused by the chain as already processed: the replay answers instead.
  assert.equal(await keyed.sendTransaction(wire, { encoding: 'base64' }).send(), signature);
  assert.equal(await solana.usdcBalance(receiver), 1_000n, 'transferred once');

  const rows = await usage(accountId);
  assert.deepEqual(
    rows.map((r) => [r.model_id, Number(r.quantity)]),
    [
      ['rpc:solana-mainnet', 30],
      ['rpc:solana-mainnet', 30],
      ['rpc:solana-mainnet', 30],
      ['rpc:solana-mainnet', 30],
    ],
    'getBalance, getAccountInfo, getLatestBlockhash, sendTransaction once',
  );
});

test('Solana prices and refusals: 30 credits a call, 5 for an error answer; no subscriptions, no EVM calls', async () => {
  const { key } = await h.newAccount({ usd: 1 });
  const call = (method: string, params: unknown[] = []) => post(h, '/crypto/rpc/solana-mainnet', key, { jsonrpc: '2.0', id: 1, method, params });
  const slot = await call('getSlot');
  assert.equal(slot.status, 200, slot.text);
  assert.deepEqual([slot.headers.get('x-service-rpc-credits'), slot.headers.get('x-service-rpc-cost-usd')], ['30', '0.00002100']);
  // The test node does not serve getLargestAccounts (a 4× method): its error answer costs the flat 5 credits.
  const large = await call('getLargestAccounts');
  assert.equal(large.status, 200);
  assert.ok(large.json.error);
  assert.equal(large.headers.get('x-service-rpc-credits'), '5');
  for (const [method, why] of [
    ['accountSubscribe', /WebSocket/],
    ['logsUnsubscribe', /WebSocket/],
    ['eth_call', /not available on solana-mainnet/],
    ['requestAirdrop', /not available/],
  ] as const) {
    const r = await call(method);
    assert.deepEqual([r.status, r.json.code], [400, 'RPC_METHOD_NOT_SUPPORTED'], method);
    assert.match(r.json.error, why);
  }
});

// An offline Solana for the wallet tests: LiteSVM (an in-process Solana VM) behind a loopback JSON-RPC shim that
// answers the few methods the unmodified @x402/svm client and facilitator call. A USDC-like mint sits at the real
// mainnet USDC address, so the server's production requirements work unchanged.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { address, type Address, getBase58Decoder, getTransactionDecoder, lamports, none, some } from '@solana/kit';
import { AccountState, findAssociatedTokenPda, getMintEncoder, getTokenDecoder, getTokenEncoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { LiteSVM } from 'litesvm';
import { SOLANA_MAINNET } from '../../../lib/wallet/networks.ts';

export const SOLANA_USDC = address(SOLANA_MAINNET.usdc);

export interface Solana {
  rpcUrl: string;
  svm: LiteSVM;
  /** The facilitator's fee payer: its 64-byte secret key (as LAGOON_X402_SOLANA_FEE_PAYER_KEY takes it) and address. */
  feePayer: { secret: Uint8Array; address: string };
  /** Gives `owner` a USDC token account holding `amount` (6 decimals) more. */
  fund(owner: string, amount: bigint): Promise<void>;
  usdcBalance(owner: string): Promise<bigint>;
  /** RPC methods called so far. */
  methods: Set<string>;
  close(): Promise<void>;
}

/** A fresh Ed25519 key pair as Solana stores it: 64 bytes, seed then public key. */
export function solanaKeyPair(): { secret: Uint8Array; address: string } {
  const seed = randomBytes(32);
  const pub = ed25519.getPublicKey(seed);
  const secret = new Uint8Array(64);
  secret.set(seed);
  secret.set(pub, 32);
  return { secret, address: base58.encode(pub) };
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

export async function startSolana(): Promise<Solana> {
  const svm = new LiteSVM();
  const rent = (bytes: number) => svm.minimumBalanceForRentExemption(BigInt(bytes));
  const mintAuthority = solanaKeyPair();
  svm.setAccount({
    address: SOLANA_USDC,
    lamports: lamports(rent(82)),
    programAddress: TOKEN_PROGRAM_ADDRESS,
    executable: false,
    data: new Uint8Array(
      getMintEncoder().encode({
        mintAuthority: some(address(mintAuthority.address)),
        supply: 1_000_000_000_000n,
        decimals: 6,
        isInitialized: true,
        freezeAuthority: none(),
      }),
    ),
  } as never);
  const feePayer = solanaKeyPair();
  svm.airdrop(address(feePayer.address) as never, lamports(10_000_000_000n) as never);

  const ataOf = async (owner: string) => (await findAssociatedTokenPda({ mint: SOLANA_USDC, owner: address(owner), tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
  const usdcBalance = async (owner: string): Promise<bigint> => {
    const account = svm.getAccount((await ataOf(owner)) as never);
    return account?.exists ? getTokenDecoder().decode(account.data).amount : 0n;
  };
  async function fund(owner: string, amount: bigint) {
    const ata: Address = await ataOf(owner);
    const held = await usdcBalance(owner);
    svm.setAccount({
      address: ata,
      lamports: lamports(rent(165)),
      programAddress: TOKEN_PROGRAM_ADDRESS,
      executable: false,
      data: new Uint8Array(
        getTokenEncoder().encode({
          mint: SOLANA_USDC,
          owner: address(owner),
          amount: held + amount,
          delegate: none(),
          state: AccountState.Initialized,
          isNative: none(),
          delegatedAmount: 0n,
          closeAuthority: none(),
        }),
      ),
    } as never);
  }

  // --- the JSON-RPC shim ---
  const decodeTx = (wire: string) => getTransactionDecoder().decode(Buffer.from(wire, 'base64'));
  const signatureOf = (tx: ReturnType<typeof decodeTx>) => getBase58Decoder().decode(Object.values(tx.signatures)[0]!);
  const context = { slot: 1 };
  const failed = (r: unknown) => typeof (r as { err?: unknown }).err === 'function';
  const handlers: Record<string, (params: any[]) => unknown> = {
    getAccountInfo: ([addr]) => {
      const a = svm.getAccount(addr);
      return {
        context,
        value: a?.exists
          ? {
              data: [b64(a.data), 'base64'],
              executable: a.executable,
              lamports: Number(a.lamports),
              owner: a.programAddress,
              rentEpoch: 0,
              space: a.data.length,
            }
          : null,
      };
    },
    getLatestBlockhash: () => ({ context, value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: 1000 } }),
    getBalance: ([addr]) => ({ context, value: Number(svm.getBalance(addr) ?? 0n) }),
    // A node's health call and its slot (the JSON-RPC proxy's health checks and tests).
    getHealth: () => 'ok',
    getSlot: () => Number(svm.getClock().slot),
    // x402 simulates the partially signed transaction (its fee payer has not signed yet) with sigVerify: false.
    simulateTransaction: ([wire, cfg]) => {
      svm.withSigverify(cfg?.sigVerify === true);
      try {
        const r: any = svm.simulateTransaction(decodeTx(wire) as never);
        return failed(r)
          ? { context, value: { err: String(r.err()), logs: r.meta().logs() } }
          : { context, value: { err: null, logs: r.meta().logs(), unitsConsumed: Number(r.meta().computeUnitsConsumed()) } };
      } finally {
        svm.withSigverify(true);
      }
    },
    sendTransaction: ([wire]) => {
      const tx = decodeTx(wire);
      const r: any = svm.sendTransaction(tx as never);
      if (failed(r)) throw new Error(`transaction failed: ${String(r.err())}`);
      return signatureOf(tx);
    },
    getSignatureStatuses: ([signatures]) => ({
      context,
      value: (signatures as string[]).map((s) =>
        svm.getTransaction(s as never) ? { slot: 1, confirmations: null, err: null, confirmationStatus: 'confirmed' } : null,
      ),
    }),
  };
  const methods = new Set<string>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const answer = (call: any): unknown => {
        let id: unknown = null;
        try {
          id = call.id;
          methods.add(call.method);
          const handler = handlers[call.method];
          if (!handler) throw new Error(`method not supported by the test RPC: ${call.method}`);
          return { jsonrpc: '2.0', id, result: handler(call.params ?? []) };
        } catch (e) {
          return { jsonrpc: '2.0', id, error: { code: -32000, message: (e as Error).message } };
        }
      };
      let out: unknown;
      try {
        const parsed = JSON.parse(body);
        // A batch (an array of calls) gets an array of answers, as Solana's RPC gives.
        out = Array.isArray(parsed) ? parsed.map(answer) : answer(parsed);
      } catch (e) {
        out = { jsonrpc: '2.0', id: null, error: { code: -32700, message: (e as Error).message } };
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(out));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    rpcUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    svm,
    feePayer,
    fund,
    usdcBalance,
    methods,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

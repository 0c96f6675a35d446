// kill -9 between an `upto` payment's provisional credit and its settlement: the real server (scripts/serve.ts) runs a
// chat paid with x402's upto (Permit2, on the local chain), its settlement is held at a relay in front of the chain
// (the facilitator hangs), and the server is killed there. Restarted on the same store, its recovery sweep finishes
// the payment from what was kept with the claim: it settles exactly the usage row's charge, once; when the held
// settlement reached the chain after the kill, it marks it settled without sending another. Replays of the same
// payment header, while the claim is pending past the stale window and after it is finished, are refused and credit
// nothing; the operator's reconciliation finds no difference.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { createPermit2ApprovalTx, UptoEvmScheme } from '@x402/evm/upto/client';
import { x402Client } from '@x402/fetch';
import type { Hex, LocalAccount } from 'viem';
import { loadConfig } from '../../lib/config.ts';
import { openStore } from '../../lib/db/open.ts';
import { dataDirSecretsKey, secretBox } from '../../lib/db/secret-box.ts';
import type { Store } from '../../lib/db/store.ts';
import { type Anvil, startAnvil, USDC } from '../support/chains/anvil.ts';
import { type RpcRelay, startRelay } from '../support/chains/rpc-relay.ts';
import { scriptedModel } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';
import { type LoggedServer, lagoonCli, startLoggedServer } from '../support/processes.ts';
import { type ScriptedEngine, startScriptedEngine } from '../support/scripted-engine.ts';
import { createFacilitator } from '../../lib/wallet/facilitator.ts';
import { UptoRecovery } from '../../lib/wallet/upto-recovery.ts';
import { BASE_PAY_TO, evmWallet, signPayment, walletEnv } from './clients.ts';

// A claim untouched for 2 s is stale (the server touches a live one every 0.5 s; the sweep runs every second).
const STALE_MS = 2_000;
const LEASE = { LAGOON_HEARTBEAT_MS: '200', LAGOON_HOLD_LEASE_MS: '1000', LAGOON_HOLD_SWEEP_MS: '250' };
const SEND = 'eth_sendRawTransaction';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

interface ClaimRow {
  id: string;
  status: string;
  amount: number;
  tx_hash: string | null;
  payment: string | null;
  request_id: string;
  updated_at: number;
  account_id: string;
}

for (const backend of ['postgres', 'sqlite'] as const) {
  describe(`an upto payment across kill -9 on ${backend}`, () => {
    let anvil: Anvil;
    let engine: ScriptedEngine;
    let dataDir: string;
    let baseEnv: NodeJS.ProcessEnv;
    let store: Store;
    let dropDb = async () => {};
    const relays: RpcRelay[] = [];
    const servers: ChildProcess[] = [];

    before(async () => {
      anvil = await startAnvil();
      engine = await startScriptedEngine({ name: 'upto-crash' });
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-upto-crash-'));
      const catalogue = path.join(dataDir, 'models.json');
      fs.writeFileSync(catalogue, JSON.stringify({ system_prompts: [], models: [scriptedModel('upto-model', engine.url, { traits: ['default'] })] }));
      baseEnv = {
        ...process.env,
        ...LEASE,
        ...walletEnv({ anvil }),
        LAGOON_X402_PER_REQUEST: '1',
        LAGOON_X402_PER_REQUEST_MAX_USD: '1',
        LAGOON_X402_STALE_CLAIM_MS: String(STALE_MS),
        LAGOON_NO_APP: '1',
        LAGOON_DATA_DIR: dataDir,
        LAGOON_MODELS: catalogue,
        HOST: '127.0.0.1',
        PORT: '0',
      };
      if (backend === 'postgres') {
        const db = await createTestDatabase();
        baseEnv.DATABASE_URL = db.url;
        dropDb = db.drop;
      }
    });
    after(async () => {
      for (const s of servers) if (s.exitCode === null && s.signalCode === null) s.kill('SIGKILL');
      await store?.close();
      for (const r of relays) await r.close();
      await engine?.close();
      await anvil?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      await dropDb();
    });

    /** A server whose chain calls go through a relay of its own (the facilitator's RPC). */
    async function serve(mode: RpcRelay['mode'] = 'pass'): Promise<{ server: LoggedServer; relay: RpcRelay; env: NodeJS.ProcessEnv }> {
      const relay = await startRelay(anvil.rpcUrl);
      relay.mode = mode;
      relays.push(relay);
      const env = { ...baseEnv, LAGOON_X402_BASE_RPC_URL: relay.url };
      const server = await startLoggedServer(env);
      servers.push(server.proc);
      return { server, relay, env };
    }

    const body = JSON.stringify({ model: 'upto-model', max_tokens: 200, messages: [{ role: 'user', content: '[[tokens:20]]' }] });
    const chat = (origin: string, header?: string) =>
      fetch(`${origin}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(header ? { 'PAYMENT-SIGNATURE': header } : {}) },
        body,
      });

    /** A payer with USDC and Permit2 approved, and its signed payment of the server's cap. */
    async function signedPayment(origin: string): Promise<{ account: LocalAccount; header: string; cap: number }> {
      const account = evmWallet();
      await anvil.mint(account.address, 1_000_000n);
      await anvil.send(account, createPermit2ApprovalTx(USDC) as { to: Hex; data: Hex });
      const res = await chat(origin);
      assert.equal(res.status, 402, await res.clone().text());
      const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
      const header = await signPayment(new x402Client().register('eip155:8453', new UptoEvmScheme(account)), required);
      return { account, header, cap: Number(required.accepts.find((a) => a.network === 'eip155:8453')!.amount) };
    }

    const claimOf = (account: LocalAccount) =>
      store.get<ClaimRow>(
        `SELECT t.id, t.status, t.amount, t.tx_hash, t.payment, t.request_id, t.updated_at, w.account_id FROM x402_topups t JOIN wallets w ON w.id = t.wallet_id
          WHERE t.payer = $1 AND t.scheme = 'upto'`,
        [account.address.toLowerCase()],
      );
    const usageOf = async (requestId: string) => {
      const row = await store.get<{ usd: number }>('SELECT usd FROM usage WHERE request_id = $1', [requestId]);
      return row && Number(row.usd);
    };
    const balanceOf = async (accountId: string) => Number((await store.get<{ usd: number }>('SELECT usd FROM accounts WHERE id = $1', [accountId]))!.usd);
    const entriesOf = (accountId: string) =>
      store.all<{ kind: string; usd: number }>('SELECT kind, usd FROM ledger_entries WHERE account_id = $1 AND usd <> 0 ORDER BY created_at', [accountId]);

    /** Sends a paid chat, waits until its settlement reaches the chain's relay (held there), and kills the server. */
    async function killMidSettlement(s: { server: LoggedServer; relay: RpcRelay }, header: string) {
      const held = s.relay.hold(SEND);
      const answer = chat(s.server.origin, header).then(
        (r) => r.status,
        () => 'cut' as const,
      );
      await Promise.race([held.arrived, s.server.exited.then(() => assert.fail(`the server exited:\n${s.server.log()}`))]);
      s.server.proc.kill('SIGKILL');
      assert.equal(await s.server.exited, null, 'killed, not exited');
      assert.equal(await answer, 'cut', 'the client never got its answer');
      return held;
    }

    test('killed before the settlement, restarted: the sweep settles the charge once; replays are refused and credit nothing', async (t) => {
      const first = await serve();
      store = await openStore({ databaseUrl: baseEnv.DATABASE_URL, dataDir });
      const { account, header, cap } = await signedPayment(first.server.origin);
      const payerBefore = await anvil.usdcBalance(account.address);
      const payToBefore = await anvil.usdcBalance(BASE_PAY_TO);
      // The held settlement is never let through: it died with the server.
      await killMidSettlement(first, header);

      const pending = (await claimOf(account))!;
      const used = (await usageOf(pending.request_id))!;
      assert.equal(pending.status, 'pending');
      assert.ok(pending.payment, 'the payment is kept with the claim');
      assert.ok(used > 0 && used < cap, `the usage row is recorded before the settlement: ${used} of ${cap}`);
      assert.equal(await balanceOf(pending.account_id), cap - used, 'the cap credited, the charge taken');

      // Restarted with the chain out of reach: the sweep cannot finish the claim, which goes stale again.
      const second = await serve('error');
      // The window is short: the restarted sweep takes the claim again at its next tick and touches it while its
      // attempt lasts (longer on a loaded machine), so the wait is generous and any moment past the window counts.
      const stale = await until(
        'the claim to go stale',
        async () => {
          const row = (await claimOf(account))!;
          return Date.now() - Number(row.updated_at) > STALE_MS + 20 ? row : undefined;
        },
        60_000,
      );
      assert.equal(stale.status, 'pending');
      // A replay of the same header past the stale window is refused: an upto claim is never taken over.
      const early = await chat(second.server.origin, header);
      assert.equal(early.status, 409, await early.clone().text());
      assert.equal((await early.json()).code, 'PAYMENT_IN_PROGRESS');
      assert.equal(await balanceOf(pending.account_id), cap - used, 'the replay credited nothing');

      // The chain back: the sweep settles exactly the charge, once.
      second.relay.mode = 'pass';
      const done = await until('the sweep to settle the claim', async () => {
        const row = (await claimOf(account))!;
        return row.status === 'pending' ? undefined : row;
      });
      assert.deepEqual([done.status, Number(done.amount), done.payment], ['settled', used, null]);
      assert.match(done.tx_hash ?? '', /^0x[0-9a-f]{64}$/);
      assert.equal(second.relay.count(SEND), 1, 'one settlement sent');
      assert.equal(await anvil.usdcBalance(account.address), payerBefore - BigInt(used), 'the payer paid the charge, not the cap');
      assert.equal(await anvil.usdcBalance(BASE_PAY_TO), payToBefore + BigInt(used));
      assert.equal(await balanceOf(pending.account_id), 0, 'the unused part of the cap was taken back');

      // After it is finished, a replay is refused and nothing moves.
      const again = await chat(second.server.origin, header);
      assert.equal(again.status, 409, await again.clone().text());
      assert.equal((await again.json()).code, 'PAYMENT_ALREADY_CREDITED');
      await sleep(STALE_MS + 500); // past another window and sweep
      assert.equal(second.relay.count(SEND), 1, 'nothing settled again');
      assert.equal(await anvil.usdcBalance(account.address), payerBefore - BigInt(used));
      assert.equal(await balanceOf(pending.account_id), 0);
      const entries = await entriesOf(pending.account_id);
      assert.deepEqual(
        entries.map((e) => [e.kind, Number(e.usd)]),
        [
          ['topup', cap],
          ['correction', -(cap - used)],
        ],
        'the cap, and the unused part taken back: the charge is the usage row',
      );
      assert.match(await lagoonCli(second.env, 'ledger', 'reconcile'), /^\d+ accounts, 0 difference\(s\)$/);
      t.diagnostic(`cap ${cap}, charged and settled ${used} micro-USD in ${done.tx_hash}`);

      // The same, when the held settlement reaches the chain after the kill: marked settled, nothing sent again.
      const next = await signedPayment(second.server.origin);
      const nextBefore = await anvil.usdcBalance(next.account.address);
      const held = await killMidSettlement(second, next.header);
      held.release();
      const paid = await until('the held settlement to be mined', async () => {
        const b = await anvil.usdcBalance(next.account.address);
        return b < nextBefore ? nextBefore - b : undefined;
      });
      const row = (await claimOf(next.account))!;
      const charged = (await usageOf(row.request_id))!;
      assert.equal(row.status, 'pending');
      assert.equal(paid, BigInt(charged), 'the chain has the charge');

      const third = await serve();
      const finished = await until('the sweep to finish the second claim', async () => {
        const r = (await claimOf(next.account))!;
        return r.status === 'pending' ? undefined : r;
      });
      assert.deepEqual([finished.status, Number(finished.amount)], ['settled', charged]);
      assert.match(finished.tx_hash ?? '', /^0x[0-9a-f]{64}$/, 'the transaction found on chain');
      assert.equal(third.relay.count(SEND), 0, 'no second settlement sent');
      assert.equal(await anvil.usdcBalance(next.account.address), nextBefore - BigInt(charged), 'paid once');
      assert.equal(await balanceOf(finished.account_id), 0);
      const replay = await chat(third.server.origin, next.header);
      assert.equal((await replay.json()).code, 'PAYMENT_ALREADY_CREDITED');

      third.server.proc.kill('SIGTERM');
      assert.equal(await third.server.exited, 0, third.server.log());
      assert.match(await lagoonCli(third.env, 'ledger', 'reconcile'), /^\d+ accounts, 0 difference\(s\)$/);
    });

    test('two sweeps at once (two instances) take a stale claim once: one settlement', async () => {
      const s = await serve();
      const { account, header } = await signedPayment(s.server.origin);
      const before = await anvil.usdcBalance(account.address);
      await killMidSettlement(s, header);
      const row = await until('the claim to go stale', async () => {
        const r = (await claimOf(account))!;
        return Date.now() - Number(r.updated_at) > STALE_MS ? r : undefined;
      });
      const charged = (await usageOf(row.request_id))!;

      // Two recoveries as two instances run them (each its own facilitator), on the store the server left.
      const relay = await startRelay(anvil.rpcUrl);
      relays.push(relay);
      const cfg = loadConfig({ ...baseEnv, LAGOON_X402_BASE_RPC_URL: relay.url }).wallet;
      const secrets = backend === 'sqlite' ? secretBox(dataDirSecretsKey(dataDir)) : undefined;
      const recovery = () => {
        const facilitator = createFacilitator(cfg);
        return new UptoRecovery({ store, cfg: () => cfg, facilitator: async () => facilitator, secrets });
      };
      const outcomes = (await Promise.all([recovery().sweep(), recovery().sweep()])).flat();
      assert.equal(outcomes.length, 1, `one sweep took it: ${JSON.stringify(outcomes)}`);
      const [won] = outcomes;
      assert.ok(won.kind === 'settled' && won.sent, JSON.stringify(won));
      assert.equal(won.amount, charged);
      assert.match(won.tx ?? '', /^0x[0-9a-f]{64}$/);
      assert.equal(relay.count(SEND), 1, 'one settlement sent');
      assert.equal(await anvil.usdcBalance(account.address), before - BigInt(charged));
      const done = (await claimOf(account))!;
      assert.deepEqual([done.status, Number(done.amount), await balanceOf(done.account_id)], ['settled', charged, 0]);
      assert.match(await lagoonCli(s.env, 'ledger', 'reconcile'), /^\d+ accounts, 0 difference\(s\)$/);
    });
  });
}

// The embedded store's settlement journal: a settlement is recorded (journaled) before its commit, the commit follows
// in the same event-loop turn, and a process that died in between has the journaled settlement applied once at its
// next start; replaying what had committed, twice, or after a torn last line changes nothing more.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createAccount } from '../accounts/accounts.ts';
import { openStore } from '../db/open.ts';
import type { Store } from '../db/store.ts';
import { getBalances, grantUsd, type Hold, type UsageRecord } from './ledger.ts';
import { Ledger } from './ledger-service.ts';
import { type JournalEntry, replayJournal, SettlementJournal } from './settlement-journal.ts';

const usage: UsageRecord = { modelId: 'm', endpoint: '/chat/completions', promptTokens: 10, completionTokens: 5, cachedTokens: 0 };

describe('settlement journal (embedded store)', () => {
  let dir: string;
  let store: Store;
  let file: string;
  let n = 0;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-journal-'));
    store = await openStore({ dataDir: dir });
    file = SettlementJournal.in(dir);
  });
  after(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function account(usd = 1_000_000) {
    const a = await createAccount(store, `journal-${++n}`);
    await grantUsd(store, a.id, usd);
    return a.id;
  }
  const rows = (requestId: string) => store.all<{ usd: number; created_at: number }>('SELECT usd, created_at FROM usage WHERE request_id = $1', [requestId]);
  const hold = (accountId: string, requestId: string, usd = 500): Hold => ({ requestId, accountId, keyId: null, usd, diem: 0 });
  const lines = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

  test('recorded at once, committed at the end of the turn; the journal is removed once nothing waits in it', async () => {
    const journal = new SettlementJournal(file);
    const ledger = new Ledger(store, { soleWriter: true, journal });
    const accountId = await account();
    const reserved = await ledger.reserve({ requestId: 'j-1', accountId, keyId: null, estimate: { usd: 500, diem: 0 } });
    const s = ledger.settle(reserved.hold, { usd: 300, diem: 0 }, usage);
    // The journal line is written before settle returns; the usage row does not exist yet.
    assert.equal(lines().length, 1);
    assert.equal(JSON.parse(lines()[0]).hold.requestId, 'j-1');
    assert.equal((await rows('j-1')).length, 0);
    await s.recorded;
    assert.deepEqual(await s.committed, { usd: 300, diem: 0 });
    assert.equal((await rows('j-1'))[0].usd, 300);
    assert.equal((await getBalances(store, accountId)).usd, 1_000_000 - 300);
    await ledger.drain();
    journal.close();
    assert.equal(fs.existsSync(file), false);
  });

  test('a settlement that joins a commit already forming is not journaled: it is recorded with that commit', async () => {
    const journal = new SettlementJournal(file);
    const ledger = new Ledger(store, { soleWriter: true, journal });
    const accountId = await account();
    const a = await ledger.reserve({ requestId: 'j-6', accountId, keyId: null, estimate: { usd: 500, diem: 0 } });
    const b = await ledger.reserve({ requestId: 'j-7', accountId, keyId: null, estimate: { usd: 500, diem: 0 } });
    const first = ledger.settle(a.hold, { usd: 100, diem: 0 }, usage);
    const second = ledger.settle(b.hold, { usd: 100, diem: 0 }, usage);
    assert.deepEqual(
      lines().map((l) => JSON.parse(l).hold.requestId),
      ['j-6'],
      'only the settlement that found the group commit idle',
    );
    await second.recorded;
    assert.equal((await rows('j-7')).length, 1, 'recorded means committed for the second');
    await first.committed;
    await ledger.drain();
    journal.close();
  });

  test('a crash after the answer and before the commit: the next start applies the settlement once', async () => {
    const accountId = await account();
    const at = Date.now() - 60_000;
    // What a process that died right after answering leaves: its journal line, no usage row, no charge.
    const entry: JournalEntry = { hold: hold(accountId, 'j-2'), cost: { usd: 250, diem: 0 }, usage, at };
    fs.writeFileSync(file, `${JSON.stringify(entry)}\n`);
    assert.equal(await replayJournal(store, file), 1);
    const [row] = await rows('j-2');
    assert.equal(row.usd, 250);
    assert.equal(row.created_at, at, 'the usage row keeps the time of the answer');
    assert.equal((await getBalances(store, accountId)).usd, 1_000_000 - 250);
    assert.equal(fs.existsSync(file), false, 'the journal is emptied once applied');
    // The same line again (a crash during the replay itself): nothing moves twice.
    fs.writeFileSync(file, `${JSON.stringify(entry)}\n`);
    assert.equal(await replayJournal(store, file), 0);
    assert.equal((await rows('j-2')).length, 1);
    assert.equal((await getBalances(store, accountId)).usd, 1_000_000 - 250);
  });

  test("a JSON-RPC call's method rows travel in its journal line: written once with the usage row, also on replay", async () => {
    const accountId = await account();
    const methods = (requestId: string) =>
      store.all<{ method: string; calls: number; credits: number; created_at: number }>(
        'SELECT method, calls, credits, created_at FROM rpc_calls WHERE request_id = $1 ORDER BY method',
        [requestId],
      );
    const rpc = {
      network: 'base-mainnet',
      methods: [
        { method: 'eth_blockNumber', calls: 2, credits: 20, errors: 0 },
        { method: 'eth_call', calls: 1, credits: 30, errors: 1 },
      ],
    };
    const rpcUsage: UsageRecord = { ...usage, modelId: 'rpc:base-mainnet', endpoint: '/crypto/rpc/base-mainnet', unit: 'rpc_credit', quantity: 50, rpc };
    // Live: the rows commit with the usage row, not before it.
    const journal = new SettlementJournal(file);
    const ledger = new Ledger(store, { soleWriter: true, journal });
    const reserved = await ledger.reserve({ requestId: 'j-8', accountId, keyId: null, estimate: { usd: 500, diem: 0 } });
    const s = ledger.settle(reserved.hold, { usd: 50, diem: 0 }, rpcUsage);
    assert.deepEqual(JSON.parse(lines().at(-1)!).usage.rpc, rpc, 'the journal line carries the detail');
    assert.equal((await methods('j-8')).length, 0, 'nothing before the commit');
    await s.committed;
    assert.deepEqual(
      (await methods('j-8')).map((m) => [m.method, m.calls, m.credits]),
      [
        ['eth_blockNumber', 2, 20],
        ['eth_call', 1, 30],
      ],
    );
    await ledger.drain();
    journal.close();
    // Replayed after a crash: the rows come with the usage row, with the answer's time, and only once.
    const at = Date.now() - 30_000;
    const entry: JournalEntry = { hold: hold(accountId, 'j-9'), cost: { usd: 50, diem: 0 }, usage: rpcUsage, at };
    fs.writeFileSync(file, `${JSON.stringify(entry)}\n${JSON.stringify(entry)}\n`);
    assert.equal(await replayJournal(store, file), 1);
    const replayed = await methods('j-9');
    assert.equal(replayed.length, 2);
    assert.ok(replayed.every((m) => m.created_at === at));
    assert.equal((await methods('j-8')).length, 2, 'the committed call is not written again');
  });

  test('a settlement that had committed is not billed again; a torn last line is skipped', async () => {
    const accountId = await account();
    const journal = new SettlementJournal(file);
    const ledger = new Ledger(store, { soleWriter: true, journal });
    const reserved = await ledger.reserve({ requestId: 'j-3', accountId, keyId: null, estimate: { usd: 500, diem: 0 } });
    await ledger.settle(reserved.hold, { usd: 100, diem: 0 }, usage).committed;
    await ledger.drain();
    // The process died before it could empty the file: the committed line is still there, then half a line.
    const committedLine = lines()[0];
    assert.ok(committedLine, 'the committed settlement is still in the file while the process runs');
    fs.appendFileSync(file, '{"hold":{"requestId":"j-4","accou');
    assert.equal(await replayJournal(store, file), 0);
    assert.equal((await rows('j-3')).length, 1);
    assert.equal((await rows('j-4')).length, 0);
    assert.equal((await getBalances(store, accountId)).usd, 1_000_000 - 100);
  });

  test('a journal that cannot be written: the settlement is recorded with its commit instead', async () => {
    const accountId = await account();
    // Every write to /dev/full fails with ENOSPC, as on a full disk (this journal is never closed: nothing to remove).
    const journal = new SettlementJournal('/dev/full');
    const ledger = new Ledger(store, { soleWriter: true, journal });
    const reserved = await ledger.reserve({ requestId: 'j-5', accountId, keyId: null, estimate: { usd: 500, diem: 0 } });
    const s = ledger.settle(reserved.hold, { usd: 200, diem: 0 }, usage);
    assert.notEqual(s.recorded, undefined);
    await s.recorded;
    assert.equal((await rows('j-5'))[0].usd, 200, 'recorded means committed when nothing was journaled');
    await ledger.drain();
  });
});

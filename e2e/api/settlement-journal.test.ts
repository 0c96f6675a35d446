// The real server's start on an embedded data dir that a crash left with a settlement journaled but not committed
// (an answer was sent, its commit never ran): the settlement is applied before the server listens, once, and a
// graceful stop leaves no journal behind.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../../lib/db/open.ts';
import { JOURNAL_FILE } from '../../lib/billing/settlement-journal.ts';
import { scriptedModel } from '../support/harness.ts';
import { lagoonCli, startLoggedServer } from '../support/processes.ts';

describe('settlement journal across a restart (SQLite)', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-journal-e2e-'));
    const catalogue = path.join(dataDir, 'models.json');
    fs.writeFileSync(catalogue, JSON.stringify({ system_prompts: [], models: [scriptedModel('journal-model', 'http://127.0.0.1:9/v1')] }));
    env = { ...process.env, LAGOON_LOG_LEVEL: 'info', LAGOON_NO_APP: '1', LAGOON_DATA_DIR: dataDir, LAGOON_MODELS: catalogue, HOST: '127.0.0.1', PORT: '0' };
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('a journaled settlement is applied once at start; a graceful stop removes the journal', async () => {
    const accountId = await lagoonCli(env, 'account', 'create', '--name', 'journal');
    await lagoonCli(env, 'credit', 'grant', '--account', accountId, '--usd', '1');
    const at = Date.now() - 5_000;
    const line = {
      hold: { requestId: 'journal-req-1', accountId, keyId: null, usd: 9_000, diem: 0 },
      cost: { usd: 4_321, diem: 4_321 },
      usage: { modelId: 'journal-model', endpoint: '/chat/completions', promptTokens: 12, completionTokens: 34, cachedTokens: 0 },
      at,
    };
    const journal = path.join(dataDir, JOURNAL_FILE);
    fs.writeFileSync(journal, `${JSON.stringify(line)}\n`);

    for (const round of [1, 2]) {
      // The second start finds the journal again (as if the first had been killed before emptying it): no change.
      if (round === 2) fs.writeFileSync(journal, `${JSON.stringify(line)}\n`);
      const server = await startLoggedServer(env);
      try {
        // Log lines leave in batches: the replay's may follow the "listening" line.
        const deadline = Date.now() + 5_000;
        while (round === 1 && !/replayed 1 settlement/.test(server.log()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
        if (round === 1) assert.match(server.log(), /replayed 1 settlement/);
      } finally {
        server.proc.kill('SIGTERM');
      }
      assert.equal(await server.exited, 0, server.log());
      if (round === 2) assert.doesNotMatch(server.log(), /replayed/);
      assert.equal(fs.existsSync(journal), false, 'no journal after a graceful stop');
    }

    const store = await openStore({ dataDir });
    try {
      const rows = await store.all<{ usd: number; diem: number; created_at: number; completion_tokens: number }>(
        'SELECT usd, diem, created_at, completion_tokens FROM usage WHERE request_id = $1',
        ['journal-req-1'],
      );
      assert.equal(rows.length, 1);
      assert.deepEqual({ ...rows[0] }, { usd: 4_321, diem: 0, created_at: at, completion_tokens: 34 });
      const account = await store.get<{ usd: number }>('SELECT usd FROM accounts WHERE id = $1', [accountId]);
      assert.equal(Number(account!.usd), 1_000_000 - 4_321);
    } finally {
      await store.close();
    }
  });
});

// The proxy's settings: both upstream forms, and no message that could repeat a provider key from a URL.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig } from '../config.ts';
import { parseBaseCredits, parseUpstreams, readTables } from './config.ts';

const SECRET = 'sk_live_9f8e7d6c5b4a';

describe('crypto RPC settings', () => {
  test('upstreams: network=url,url;network=url, or JSON; the order is kept', () => {
    assert.deepEqual(
      [...parseUpstreams(`base-mainnet=https://a.example/v2/${SECRET},http://10.0.0.2:8545; solana-mainnet=https://b.example/?api-key=${SECRET}`)],
      [
        ['base-mainnet', [`https://a.example/v2/${SECRET}`, 'http://10.0.0.2:8545']],
        ['solana-mainnet', [`https://b.example/?api-key=${SECRET}`]],
      ],
    );
    assert.deepEqual(
      [...parseUpstreams('{"base-mainnet": "https://a.example", "ethereum-mainnet": ["https://b.example", "https://c.example"]}')],
      [
        ['base-mainnet', ['https://a.example']],
        ['ethereum-mainnet', ['https://b.example', 'https://c.example']],
      ],
    );
  });

  test('bad upstream values are named by network and position, never by the URL', () => {
    for (const raw of [
      `base-mainnet=ftp://user:${SECRET}@host`,
      `base-mainnet=https://ok.example,not a url ${SECRET}`,
      `{"base-mainnet": ["wss://x.example/${SECRET}"]}`,
      `Base_Mainnet=https://x.example/${SECRET}`,
      `base-mainnet=https://x.example/${SECRET};base-mainnet=https://y.example`,
      `base-mainnet`,
    ]) {
      assert.throws(
        () => parseUpstreams(raw),
        (e: Error) => !e.message.includes(SECRET),
        raw,
      );
    }
    assert.throws(
      () => loadConfig({ LAGOON_RPC_UPSTREAMS: `base-mainnet=gopher://${SECRET}` }),
      (e: Error) => {
        assert.match(e.message, /LAGOON_RPC_UPSTREAMS has an entry for base-mainnet \(URL 1\) that is not an http or https URL/);
        return !e.message.includes(SECRET);
      },
    );
  });

  test('upstreams and base credits must name known networks; tables can add them', () => {
    assert.throws(() => loadConfig({ LAGOON_RPC_UPSTREAMS: 'dogecoin-mainnet=https://x.example' }), /dogecoin-mainnet, which is not a known network/);
    assert.throws(() => loadConfig({ LAGOON_RPC_BASE_CREDITS: 'dogecoin-mainnet=5' }), /LAGOON_RPC_BASE_CREDITS names dogecoin-mainnet/);
    assert.throws(() => parseBaseCredits('base-mainnet=0'), /at least 1/);
    assert.deepEqual([...parseBaseCredits('{"base-mainnet": 25}')], [['base-mainnet', 25]]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-rpc-tables-'));
    try {
      const file = path.join(dir, 'tables.json');
      fs.writeFileSync(file, JSON.stringify({ networks: { 'dogecoin-mainnet': { family: 'evm', baseCredits: 10 } } }));
      const c = loadConfig({ LAGOON_RPC_TABLES: file, LAGOON_RPC_UPSTREAMS: 'dogecoin-mainnet=https://x.example' });
      assert.deepEqual(c.cryptoRpc.networks.get('dogecoin-mainnet'), { family: 'evm', baseCredits: 10, extensions: [] });
      fs.writeFileSync(file, JSON.stringify({ methods: { evm: { eth_call: 'cheap' } } }));
      assert.throws(() => readTables(file), /bad field at methods\.evm\.eth_call/);
      fs.writeFileSync(file, JSON.stringify({ networks: { x: { family: 'evm', baseCredits: 1, extensions: ['nope'] } } }));
      assert.throws(() => loadConfig({ LAGOON_RPC_TABLES: file }), /method set "nope"/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('defaults: no upstream, 0.7 micro-USD a credit, 5 error credits, 100 requests a minute, 10M credits a day', () => {
    const c = loadConfig({}).cryptoRpc;
    assert.equal(c.upstreams.size, 0);
    assert.equal(c.creditPriceUsd, 0.0000007);
    assert.equal(c.errorCredits, 5);
    assert.equal(c.requestsPerMinute, 100);
    assert.equal(c.creditsPerDay, 10_000_000);
    assert.equal(c.networks.size, 25);
    assert.equal(c.networks.get('zksync-mainnet')!.baseCredits, 30);
  });
});

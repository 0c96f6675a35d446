// Upstream pools against loopback JSON-RPC nodes that misbehave on demand: which failures fail over, a state-changing
// call that moves on only when its connection was refused, what counts as an answer, the URL's path, query and user
// part reaching the node (and never an error), and health probes taking a node out and back in.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { NetworkUpstreams } from './upstreams.ts';

type Behaviour = 'ok' | 'http500' | 'http401' | 'http400rpc' | 'notjson' | 'empty' | 'reset' | 'hang';

interface FakeNode {
  url: string;
  behaviour: Behaviour;
  seen: { method: string; path: string; auth: string | undefined }[];
  close(): Promise<void>;
}

async function fakeNode(): Promise<FakeNode> {
  const node: FakeNode = { url: '', behaviour: 'ok', seen: [], close: async () => {} };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const call = JSON.parse(body);
      node.seen.push({ method: call.method, path: req.url ?? '', auth: req.headers.authorization });
      const send = (status: number, text: string) => res.writeHead(status, { 'content-type': 'application/json' }).end(text);
      switch (node.behaviour) {
        case 'ok':
          return send(200, JSON.stringify({ jsonrpc: '2.0', id: call.id, result: call.method === 'getHealth' ? 'ok' : '0x1' }));
        case 'http500':
          return send(500, 'internal error');
        case 'http401':
          return send(401, JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32001, message: 'bad key' } }));
        case 'http400rpc':
          return send(400, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }));
        case 'notjson':
          return send(200, '<html>gateway</html>');
        case 'empty':
          return send(200, '');
        case 'reset':
          return req.socket.destroy();
        case 'hang':
          return;
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  node.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return node;
}

/** A port nothing listens on: connections to it are refused. */
async function deadUrl(): Promise<string> {
  const s = http.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => s.once('listening', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return `http://127.0.0.1:${port}`;
}

const body = (method: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] });
const quiet = () => {};

describe('upstream pools', () => {
  let a: FakeNode;
  let b: FakeNode;
  const pools: NetworkUpstreams[] = [];
  const pool = (urls: string[], timeoutMs = 2000) => {
    const p = new NetworkUpstreams('testnet', 'evm', urls, { timeoutMs, healthIntervalMs: 60_000, log: quiet });
    pools.push(p);
    return p;
  };
  before(async () => {
    [a, b] = await Promise.all([fakeNode(), fakeNode()]);
  });
  after(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await Promise.all([a.close(), b.close()]);
  });
  const reset = () => {
    a.behaviour = b.behaviour = 'ok';
    a.seen.length = b.seen.length = 0;
  };

  test('a read fails over past a refused connection, a 5xx, a 401, a reset (after one retry) and an answer that is not JSON', async () => {
    for (const behaviour of ['http500', 'http401', 'reset', 'notjson'] as const) {
      reset();
      a.behaviour = behaviour;
      const p = pool([a.url, b.url]);
      const r = await p.forward(body('eth_call'), { sends: false, expectsNothing: false });
      assert.deepEqual([r.upstream, r.json], ['testnet#2', { jsonrpc: '2.0', id: 1, result: '0x1' }], behaviour);
      assert.equal(p.available, 1, `${behaviour}: the failed node is out`);
      // A reset may be a kept-alive connection closing just then: one more try on a fresh one, then the next node.
      assert.equal(a.seen.length, behaviour === 'reset' ? 2 : 1, behaviour);
    }
    reset();
    const r = await pool([await deadUrl(), b.url]).forward(body('eth_call'), { sends: false, expectsNothing: false });
    assert.equal(r.upstream, 'testnet#2');
  });

  test('a transaction moves on only when its connection was refused: never sent to two nodes', async () => {
    reset();
    const moved = await pool([await deadUrl(), b.url]).forward(body('eth_sendRawTransaction'), { sends: true, expectsNothing: false });
    assert.equal(moved.upstream, 'testnet#2');
    assert.equal(b.seen.length, 1);
    for (const [behaviour, status] of [
      ['reset', 502],
      ['http500', 502],
      ['hang', 504],
    ] as const) {
      reset();
      a.behaviour = behaviour;
      await assert.rejects(pool([a.url, b.url], 500).forward(body('eth_sendRawTransaction'), { sends: true, expectsNothing: false }), (e: any) => {
        assert.equal(e.status, status, behaviour);
        return true;
      });
      assert.equal(a.seen.length, 1, behaviour);
      assert.equal(b.seen.length, 0, `${behaviour}: not sent again`);
    }
  });

  test('a 400 that is still a JSON-RPC answer is relayed; a batch of notifications may be answered with nothing', async () => {
    reset();
    a.behaviour = 'http400rpc';
    const r = await pool([a.url]).forward(body('eth_call'), { sends: false, expectsNothing: false });
    assert.equal((r.json as any).error.code, -32700);
    a.behaviour = 'empty';
    const nothing = await pool([a.url]).forward(body('eth_call'), { sends: false, expectsNothing: true });
    assert.deepEqual([nothing.text, nothing.json], ['', undefined]);
    await assert.rejects(pool([a.url]).forward(body('eth_call'), { sends: false, expectsNothing: false }), (e: any) => e.status === 502);
  });

  test('503 with no node in service or reachable, 504 when the last one timed out; messages name no URL', async () => {
    const dead = await deadUrl();
    await assert.rejects(pool([dead]).forward(body('eth_call'), { sends: false, expectsNothing: false }), (e: any) => e.status === 503);
    reset();
    a.behaviour = 'hang';
    const p = pool([`http://user:s3cret@127.0.0.1:${new URL(a.url).port}/v2/KEY-123?apikey=KEY-456`], 300);
    await assert.rejects(p.forward(body('eth_call'), { sends: false, expectsNothing: false }), (e: any) => {
      assert.equal(e.status, 504);
      assert.ok(!/s3cret|KEY-/.test(e.message), e.message);
      return true;
    });
    await assert.rejects(p.forward(body('eth_call'), { sends: false, expectsNothing: false }), (e: any) => e.status === 503);
  });

  test("the URL's path, query and user part reach the node (Basic auth); probes take a node out and bring it back", async () => {
    reset();
    const url = `http://us%40er:p%3Ass@127.0.0.1:${new URL(a.url).port}/v2/KEY-123?apikey=KEY-456`;
    const p = pool([url]);
    await p.forward(body('eth_call'), { sends: false, expectsNothing: false });
    assert.deepEqual(a.seen[0], { method: 'eth_call', path: '/v2/KEY-123?apikey=KEY-456', auth: `Basic ${Buffer.from('us@er:p:ss').toString('base64')}` });

    a.behaviour = 'http500';
    await p.probeDue(Date.now()); // the answer just now counts as a probe: none is due
    assert.equal(a.seen.length, 1);
    await p.probeDue(Date.now() + 60_000);
    assert.equal(p.available, 0);
    assert.equal(a.seen.at(-1)?.method, 'eth_chainId');
    a.behaviour = 'ok';
    await p.probeDue(Date.now() + 1000); // the first retry is due a second after a failure
    assert.equal(a.seen.length, 3);
    assert.equal(p.available, 1);
  });
});

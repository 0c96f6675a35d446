// A loopback relay in front of a real node (anvil, the Solana shim), for the JSON-RPC proxy's tests: it forwards each
// request unchanged and records the methods it saw, so a test can count how often a transaction reached a node. It
// can also hold calls of one method until the test releases them (a client gives up meanwhile), answer 503, reset the
// connection after reading the request, or never answer (a node that hangs).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type RelayMode = 'pass' | 'error' | 'reset' | 'hang';

export interface RpcRelay {
  url: string;
  /** Methods of every call forwarded or refused so far, batch items one by one, in arrival order. */
  methods: string[];
  /** How many calls of `method` arrived. */
  count(method: string): number;
  /** 'pass' forwards; 'error' answers 503; 'reset' drops the connection after reading the request; 'hang' never answers. */
  mode: RelayMode;
  /** Holds the next requests that call `method` until release(); `arrived` resolves when the first one comes. */
  hold(method: string): { arrived: Promise<void>; release(): void };
  close(): Promise<void>;
}

export async function startRelay(target: string): Promise<RpcRelay> {
  const methods: string[] = [];
  const holds = new Map<string, { gate: Promise<void>; arrive: () => void }>();
  const relay: RpcRelay = {
    url: '',
    methods,
    count: (m) => methods.filter((x) => x === m).length,
    mode: 'pass',
    hold(method) {
      let arrive!: () => void;
      let release!: () => void;
      const arrived = new Promise<void>((r) => (arrive = r));
      const gate = new Promise<void>((r) => (release = r));
      holds.set(method, { gate, arrive });
      return {
        arrived,
        release: () => {
          holds.delete(method);
          release();
        },
      };
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      let called: string[] = [];
      try {
        const parsed = JSON.parse(body.toString('utf8'));
        called = (Array.isArray(parsed) ? parsed : [parsed]).map((c: { method?: unknown }) => String(c?.method));
      } catch {
        // Not JSON: forwarded as it is, and the node says so.
      }
      methods.push(...called);
      const mode = relay.mode;
      if (mode === 'hang') return;
      if (mode === 'reset') return void req.socket.destroy();
      if (mode === 'error') return void res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable');
      for (const m of called) {
        const h = holds.get(m);
        if (h) {
          h.arrive();
          await h.gate;
        }
      }
      try {
        const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const text = await upstream.text();
        res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(text);
      } catch {
        req.socket.destroy();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  relay.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return relay;
}

// The crypto JSON-RPC proxy (`/api/v1/crypto/rpc/{network}`, lib/crypto-rpc) against the node it relays to (anvil),
// measured as the chat targets are: added latency at c=1 in interleaved rounds (latency.ts), requests/s at 64
// connections in interleaved windows, and the proxy's CPU per call from /proc. The call is `eth_blockNumber`, the
// cheapest a node answers, so what is measured is the proxy's own path (auth, caps, credits, usage row, receipt
// hashes), not the node's work.
import { CONNECTIONS, median, rps, type Target } from './client.ts';
import { latencyRounds } from './latency.ts';
import { cpuMs } from './procs.ts';

export interface RpcFigures {
  addedP50Ms: number;
  addedP99Ms: number;
  directP50Ms: number;
  rps: Map<string, { rps: number; errors: number; p99: number; cpuUsPerCall?: number }>;
}

export const rpcBody = () => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });

export async function rpcPhase(targets: Target[], rounds: number, perRound: number, seconds: number, windows: number): Promise<RpcFigures> {
  const lat = await latencyRounds(targets, rounds, perRound, 100);
  const got = targets.map(() => [] as { rps: number; requests: number; errors: number; p99: number; cpuMs?: number }[]);
  for (let w = 0; w < windows; w++) {
    for (const [i, t] of targets.entries()) {
      const c0 = t.pid ? cpuMs(t.pid) : undefined;
      const r = await rps(t.url, t.headers, t.body(''), seconds / windows);
      const c1 = t.pid ? cpuMs(t.pid) : undefined;
      got[i].push({ ...r, cpuMs: c0 && c1 ? c1.user + c1.system - c0.user - c0.system : undefined });
    }
  }
  const out = new Map<string, { rps: number; errors: number; p99: number; cpuUsPerCall?: number }>();
  targets.forEach((t, i) => {
    const w = got[i];
    const requests = w.reduce((n, r) => n + r.requests, 0);
    out.set(t.name, {
      rps: w.reduce((n, r) => n + r.rps, 0) / w.length,
      errors: w.reduce((n, r) => n + r.errors, 0),
      p99: median(w.map((r) => r.p99)),
      cpuUsPerCall: t.pid && requests ? (w.reduce((n, r) => n + (r.cpuMs ?? 0), 0) * 1000) / requests : undefined,
    });
  });
  const l = lat.get(targets.at(-1)!.name)!;
  return { addedP50Ms: l.addedP50!, addedP99Ms: l.addedP99!, directP50Ms: lat.get('direct')!.p50, rps: out };
}

export { CONNECTIONS };

// What a JSON-RPC proxy call was, beside its usage row: the network and, per method, the calls, credits and error
// answers (a batch mixes methods). The usage row (model `rpc:<network>`, unit rpc_credit, quantity the credits, the
// charge) is the bill; these rows say what it was for, in usage history and analytics. Both are keyed by the request
// id and carry the account id, so every read here filters by account first. The rows are written by the settlement,
// in its transaction and its journal line (UsageRecord.rpc): the detail commits with the bill, never alone.
import type { Param, Queryable, Store } from '../db/store.ts';

export interface RpcMethodUsage {
  method: string;
  calls: number;
  credits: number;
  /** Calls the node answered with a JSON-RPC error (billed at the flat error credits). */
  errors: number;
}

export interface RpcUsage {
  network: string;
  methods: RpcMethodUsage[];
}

/** The usage row's model id for a network, and back. */
export const rpcModelId = (network: string): string => `rpc:${network}`;
export const networkOfModelId = (modelId: string): string | undefined => (modelId.startsWith('rpc:') ? modelId.slice(4) : undefined);

/** Writes a settled call's rows (settleIn, once the usage row is in). */
export async function recordRpcUsage(
  q: Queryable,
  row: { requestId: string; accountId: string; network: string; methods: RpcMethodUsage[]; at: number },
): Promise<void> {
  if (row.methods.length === 0) return;
  const params: Param[] = [];
  const values = row.methods.map((m) => {
    params.push(row.requestId, row.accountId, row.network, m.method, m.calls, m.credits, m.errors, row.at);
    const n = params.length;
    return `($${n - 7}, $${n - 6}, $${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n})`;
  });
  await q.run(
    `INSERT INTO rpc_calls (request_id, account_id, network, method, calls, credits, errors, created_at) VALUES ${values.join(', ')}
     ON CONFLICT (request_id, method) DO NOTHING`,
    params,
  );
}

interface Row {
  request_id?: string;
  network: string;
  method: string;
  calls: number;
  credits: number;
  errors: number;
}

const toMethod = (r: Row): RpcMethodUsage => ({ method: r.method, calls: Number(r.calls), credits: Number(r.credits), errors: Number(r.errors) });

/** The detail of some of the account's requests, by request id (requests that were no proxy calls are absent). */
export async function rpcUsageOf(store: Store, accountId: string, requestIds: string[]): Promise<Map<string, RpcUsage>> {
  const out = new Map<string, RpcUsage>();
  if (requestIds.length === 0) return out;
  const list = requestIds.map((_, i) => `$${i + 2}`).join(', ');
  const rows = await store.all<Row>(
    `SELECT request_id, network, method, calls, credits, errors FROM rpc_calls WHERE account_id = $1 AND request_id IN (${list}) ORDER BY request_id, method`,
    [accountId, ...requestIds],
  );
  for (const r of rows) {
    const id = r.request_id as string;
    const u = out.get(id) ?? { network: r.network, methods: [] };
    u.methods.push(toMethod(r));
    out.set(id, u);
  }
  return out;
}

/** Per network, each method's totals over [from, to) (ms), most credits first. */
export async function rpcUsageTotals(store: Store, accountId: string, range: { from: number; to: number }): Promise<Map<string, RpcMethodUsage[]>> {
  const rows = await store.all<Row>(
    `SELECT network, method, SUM(calls) AS calls, SUM(credits) AS credits, SUM(errors) AS errors FROM rpc_calls
     WHERE account_id = $1 AND created_at >= $2 AND created_at < $3 GROUP BY network, method`,
    [accountId, range.from, range.to],
  );
  const out = new Map<string, RpcMethodUsage[]>();
  for (const r of rows) {
    const list = out.get(r.network) ?? [];
    list.push(toMethod(r));
    out.set(r.network, list);
  }
  for (const list of out.values()) list.sort((a, b) => b.credits - a.credits || b.calls - a.calls || (a.method < b.method ? -1 : 1));
  return out;
}

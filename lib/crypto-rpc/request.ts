// A JSON-RPC 2.0 request body as the proxy takes it: one call object or a batch of at most 100, each checked for the
// shape nodes accept. Only the methods and ids are kept: the body is forwarded as the client sent it (its numbers may
// exceed what a JavaScript number holds exactly, so it is never re-serialised).
import { ApiError } from '../api/errors.ts';
import { METHOD_NAME } from './methods.ts';

export const MAX_BATCH = 100;

export interface RpcItem {
  method: string;
  /** The call's id; undefined for a notification (no id: the node sends no answer for it). */
  id: string | number | null | undefined;
}

export interface RpcRequest {
  batch: boolean;
  items: RpcItem[];
}

function invalid(index: number | undefined, message: string, param?: string): ApiError {
  const where = index === undefined ? '' : `batch item ${index}: `;
  return new ApiError('INVALID_REQUEST', `${where}${message}`, param ? { param: index === undefined ? param : `${index}.${param}` } : undefined);
}

function item(raw: unknown, index: number | undefined): RpcItem {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw invalid(index, 'a JSON-RPC call must be an object');
  const call = raw as Record<string, unknown>;
  if (call.jsonrpc !== '2.0') throw invalid(index, 'jsonrpc must be "2.0"', 'jsonrpc');
  if (typeof call.method !== 'string') throw invalid(index, 'method must be a string', 'method');
  if (!METHOD_NAME.test(call.method)) throw invalid(index, 'method must be a JSON-RPC method name (letters, digits and _, up to 128)', 'method');
  if (call.params !== undefined && (call.params === null || typeof call.params !== 'object'))
    throw invalid(index, 'params must be an array or an object', 'params');
  const id = call.id;
  if (id !== undefined && id !== null && typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id)))
    throw invalid(index, 'id must be a string, a number or null', 'id');
  for (const k of Object.keys(call)) {
    if (k !== 'jsonrpc' && k !== 'method' && k !== 'params' && k !== 'id') throw invalid(index, `unknown member "${k.slice(0, 40)}"`, k.slice(0, 40));
  }
  return { method: call.method, id: id as RpcItem['id'] };
}

/** The calls of a parsed body; 400 for an empty or oversized batch and for any malformed call. */
export function parseRpcRequest(body: unknown): RpcRequest {
  if (!Array.isArray(body)) return { batch: false, items: [item(body, undefined)] };
  if (body.length === 0) throw new ApiError('INVALID_REQUEST', 'The batch is empty: send at least one JSON-RPC call');
  if (body.length > MAX_BATCH) throw new ApiError('INVALID_REQUEST', `The batch has ${body.length} calls; at most ${MAX_BATCH} are allowed`);
  return { batch: true, items: body.map((b, i) => item(b, i)) };
}

// The MCP client (the official SDK): one connection per server (and per user where the user has their own headers),
// opened on first use, reused across answers, dropped when the server's settings change (its updated_at is in the
// key), when the transport closes, or after sitting idle. Every request has a timeout; a stdio server runs with the
// SDK's minimal environment (never this server's secrets) and its stderr discarded.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ApiError } from '../api/errors.ts';
import { log } from '../log.ts';
import { checkServerUrl, guardedFetch } from './guard.ts';
import type { McpServer } from './mcp-servers.ts';

export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface McpCallOutcome {
  text: string;
  isError: boolean;
}

export interface McpPoolOptions {
  /** Hosts an HTTP server may have although they resolve to private addresses (LAGOON_FETCH_ALLOW_HOSTS). */
  allowHosts: readonly string[];
  /** Whether stdio servers may be started (LAGOON_MCP_STDIO). */
  stdioAllowed: boolean;
  connectTimeoutMs?: number;
  /** A connection unused this long is closed. */
  idleMs?: number;
  /** How long a server's tool list is reused before it is asked again. */
  toolsTtlMs?: number;
}

interface Conn {
  client: Client;
  close: () => Promise<void>;
  lastUsed: number;
  tools?: { at: number; list: McpToolInfo[] };
}

const CLIENT_INFO = { name: 'lagoon', version: '0.1.0' };
// What one server may offer: more tools, or larger descriptions and schemas, are left out rather than sent to the model.
const MAX_TOOLS = 64;
const MAX_DESCRIPTION = 2000;
const MAX_SCHEMA_CHARS = 20_000;

export class McpPool {
  private readonly conns = new Map<string, Promise<Conn>>();
  private readonly timer: NodeJS.Timeout;
  private readonly connectTimeoutMs: number;
  private readonly idleMs: number;
  private readonly toolsTtlMs: number;
  private readonly opts: McpPoolOptions;

  constructor(opts: McpPoolOptions) {
    this.opts = opts;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
    this.idleMs = opts.idleMs ?? 5 * 60_000;
    this.toolsTtlMs = opts.toolsTtlMs ?? 60_000;
    this.timer = setInterval(() => this.reap(), Math.min(60_000, this.idleMs));
    this.timer.unref();
  }

  /** The server's tools (cached for a while per connection). */
  async tools(server: McpServer, userHeaders: Record<string, string> = {}, signal?: AbortSignal): Promise<McpToolInfo[]> {
    return this.using(server, userHeaders, async (c) => {
      if (c.tools && Date.now() - c.tools.at < this.toolsTtlMs) return c.tools.list;
      const list: McpToolInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await c.client.listTools(cursor ? { cursor } : undefined, { timeout: this.connectTimeoutMs, signal });
        for (const t of page.tools) {
          if (list.length >= MAX_TOOLS) break;
          const schema = (t.inputSchema ?? { type: 'object' }) as Record<string, unknown>;
          if (JSON.stringify(schema).length > MAX_SCHEMA_CHARS) continue;
          list.push({ name: t.name, description: (t.description ?? t.title ?? '').slice(0, MAX_DESCRIPTION), inputSchema: schema });
        }
        cursor = list.length < MAX_TOOLS ? page.nextCursor : undefined;
      } while (cursor);
      c.tools = { at: Date.now(), list };
      return list;
    });
  }

  /** Calls one tool; the outcome's text is everything the tool returned, as text (the caller caps it). */
  async call(
    server: McpServer,
    userHeaders: Record<string, string>,
    name: string,
    args: Record<string, unknown>,
    o: { signal: AbortSignal; timeoutMs: number },
  ): Promise<McpCallOutcome> {
    return this.using(server, userHeaders, async (c) => {
      const r = await c.client.callTool({ name, arguments: args }, undefined, { signal: o.signal, timeout: o.timeoutMs, maxTotalTimeout: o.timeoutMs });
      return { text: resultText(r), isError: r.isError === true };
    });
  }

  /** Closes every connection (shutdown). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const all = [...this.conns.values()];
    this.conns.clear();
    await Promise.allSettled(all.map(async (p) => (await p).close()));
  }

  private async using<T>(server: McpServer, userHeaders: Record<string, string>, fn: (c: Conn) => Promise<T>): Promise<T> {
    const key = `${server.id}:${server.updatedAt}:${Object.keys(userHeaders).length ? JSON.stringify(userHeaders) : ''}`;
    let pending = this.conns.get(key);
    if (!pending) {
      pending = this.open(server, userHeaders, key);
      this.conns.set(key, pending);
      pending.catch(() => this.conns.get(key) === pending && this.conns.delete(key));
    }
    const c = await pending;
    c.lastUsed = Date.now();
    return fn(c);
  }

  private async open(server: McpServer, userHeaders: Record<string, string>, key: string): Promise<Conn> {
    // Connections to an older version of this server's settings go.
    for (const [k, p] of this.conns) {
      if (k !== key && k.startsWith(`${server.id}:`) && !k.startsWith(`${server.id}:${server.updatedAt}:`)) {
        this.conns.delete(k);
        p.then((c) => c.close()).catch(() => undefined);
      }
    }
    let transport: Transport;
    let closeFetch: (() => Promise<void>) | undefined;
    if (server.transport === 'stdio') {
      if (!this.opts.stdioAllowed)
        throw new ApiError('INVALID_REQUEST', `MCP server ${server.name} runs over stdio, which this server does not allow (LAGOON_MCP_STDIO)`);
      if (!server.command) throw new ApiError('INVALID_REQUEST', `MCP server ${server.name} has no command`);
      transport = new StdioClientTransport({ command: server.command, args: server.args, stderr: 'ignore' });
    } else {
      const url = checkServerUrl(server.url ?? '', this.opts.allowHosts);
      const guarded = guardedFetch(this.opts.allowHosts);
      closeFetch = guarded.close;
      transport = new StreamableHTTPClientTransport(url, {
        fetch: guarded.fetch,
        requestInit: { headers: mergeHeaders(server.headers, userHeaders) },
        reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
      });
    }
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await client.close().catch(() => undefined);
      await closeFetch?.().catch(() => undefined);
    };
    client.onclose = () => {
      void close();
      const p = this.conns.get(key);
      if (p) void p.then((c) => c.client === client && this.conns.delete(key)).catch(() => undefined);
    };
    client.onerror = (err) => log.debug({ err, server: server.name }, 'MCP transport error');
    try {
      await client.connect(transport, { timeout: this.connectTimeoutMs });
    } catch (e) {
      await close();
      throw new Error(`MCP server ${server.name} could not be reached: ${messageOf(e)}`);
    }
    return { client, close, lastUsed: Date.now() };
  }

  private reap(): void {
    const now = Date.now();
    for (const [k, p] of this.conns) {
      void p
        .then((c) => {
          if (now - c.lastUsed > this.idleMs && this.conns.get(k) === p) {
            this.conns.delete(k);
            return c.close();
          }
        })
        .catch(() => undefined);
    }
  }
}

/** The operator's headers with the user's own over them, matched regardless of case (one value per name). */
export function mergeHeaders(...sets: Record<string, string>[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const set of sets) for (const [k, v] of Object.entries(set)) out[k.toLowerCase()] = v;
  return out;
}

/** An error's message with its causes (undici's "fetch failed" says why only in its cause). */
export function messageOf(e: unknown): string {
  const parts: string[] = [];
  for (let x: unknown = e, i = 0; x !== undefined && x !== null && i < 4; i++) {
    const m = x instanceof Error ? x.message : String(x);
    if (m && !parts.includes(m)) parts.push(m);
    x = x instanceof Error ? x.cause : undefined;
  }
  return parts.join(': ').slice(0, 500);
}

/** A CallToolResult's content as text: text parts as they are, other parts named, structured content as JSON. */
function resultText(r: Record<string, unknown>): string {
  const parts: string[] = [];
  const content = Array.isArray(r.content) ? (r.content as Record<string, unknown>[]) : [];
  for (const p of content) {
    if (p.type === 'text' && typeof p.text === 'string') parts.push(p.text);
    else if (p.type === 'image' || p.type === 'audio') parts.push(`[${p.type}: ${String(p.mimeType ?? 'unknown type')}]`);
    else if (p.type === 'resource_link') parts.push(`[resource: ${String(p.uri ?? '')}]`);
    else if (p.type === 'resource') {
      const res = (p.resource ?? {}) as Record<string, unknown>;
      parts.push(typeof res.text === 'string' ? res.text : `[resource: ${String(res.uri ?? '')}]`);
    }
  }
  if (!parts.length && r.structuredContent !== undefined) parts.push(JSON.stringify(r.structuredContent));
  if (!parts.length && 'toolResult' in r) parts.push(JSON.stringify(r.toolResult));
  return parts.join('\n');
}

// The operator's MCP servers, kept in the database: an HTTP (streamable) endpoint or, where the operator allowed it,
// a program run over stdio. Header values (an API key for the server) are sealed like upstream keys, under a context
// naming the row, and a user's own headers for a server (a personal token) sit in their own sealed row.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import type { SecretBox } from '../db/secret-box.ts';
import type { Store } from '../db/store.ts';
import type { AppMcpServer, McpTransport } from './wire.ts';

export interface McpServer {
  id: string;
  name: string;
  transport: McpTransport;
  url: string | null;
  command: string | null;
  args: string[];
  /** Opened header values (never sent to a browser). */
  headers: Record<string, string>;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

interface Row {
  id: string;
  name: string;
  transport: string;
  url: string | null;
  command: string | null;
  args: string;
  headers: string | null;
  enabled: number | string | boolean;
  created_at: number | string;
  updated_at: number | string;
}

const COLS = 'id, name, transport, url, command, args, headers, enabled, created_at, updated_at';

// Header names as HTTP allows them; values without line breaks. Hop-by-hop and framing headers are the transport's.
const RESERVED = new Set(['host', 'content-length', 'content-type', 'accept', 'connection', 'transfer-encoding', 'mcp-session-id', 'mcp-protocol-version']);
export const headersSchema = z
  .record(
    z
      .string()
      .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'a header name')
      .refine((n) => !RESERVED.has(n.toLowerCase()), 'a header the transport sets itself'),
    z
      .string()
      .max(8192)
      .regex(/^[^\r\n\0]*$/, 'no line breaks'),
  )
  .refine((h) => Object.keys(h).length <= 20, 'at most 20 headers');

export const serverInputSchema = z.strictObject({
  name: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9 _.-]{0,39}$/, 'name: 1 to 40 letters, digits, spaces, dots, dashes or underscores'),
  transport: z.enum(['http', 'stdio']),
  url: z.string().max(2000).optional(),
  command: z.string().trim().min(1).max(1000).optional(),
  args: z.array(z.string().max(1000)).max(50).optional(),
  headers: headersSchema.nullable().optional(),
  enabled: z.boolean().optional(),
});
export type ServerInput = z.infer<typeof serverInputSchema>;

const headersContext = (id: string) => `mcp_servers.headers:${id}`;
const userHeadersContext = (id: string, userId: string) => `mcp_user_headers:${id}:${userId}`;

function needBox(box: SecretBox | undefined): SecretBox {
  if (!box) throw new ApiError('INVALID_REQUEST', 'Headers cannot be stored: this server has no secrets key (set LAGOON_SECRETS_KEY)', { param: 'headers' });
  return box;
}

function open(box: SecretBox | undefined, stored: string | null, context: string): Record<string, string> {
  if (!stored || !box) return {};
  try {
    return JSON.parse(box.open(stored, context)) as Record<string, string>;
  } catch {
    // Sealed under another key: the server is used without them rather than with someone else's.
    return {};
  }
}

const toServer = (r: Row, box: SecretBox | undefined): McpServer => ({
  id: r.id,
  name: r.name,
  transport: r.transport === 'stdio' ? 'stdio' : 'http',
  url: r.url,
  command: r.command,
  args: JSON.parse(r.args) as string[],
  headers: open(box, r.headers, headersContext(r.id)),
  enabled: r.enabled === true || Number(r.enabled) === 1,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export const toAppServer = (s: McpServer): AppMcpServer => ({
  id: s.id,
  name: s.name,
  transport: s.transport,
  url: s.url,
  command: s.command,
  args: [...s.args],
  headerNames: Object.keys(s.headers),
  enabled: s.enabled,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});

export class McpServers {
  private readonly store: Store;
  private readonly box: SecretBox | undefined;

  constructor(store: Store, box: SecretBox | undefined) {
    this.store = store;
    this.box = box;
  }

  async list(): Promise<McpServer[]> {
    const rows = await this.store.all<Row>(`SELECT ${COLS} FROM mcp_servers ORDER BY name`);
    return rows.map((r) => toServer(r, this.box));
  }

  async get(id: string): Promise<McpServer> {
    const r = await this.store.get<Row>(`SELECT ${COLS} FROM mcp_servers WHERE id = $1`, [id]);
    if (!r) throw new ApiError('NOT_FOUND', 'MCP server not found');
    return toServer(r, this.box);
  }

  /** The enabled servers among `ids` (unknown or disabled ids are left out). */
  async enabledOf(ids: readonly string[]): Promise<McpServer[]> {
    if (!ids.length) return [];
    const all = await this.list();
    return all.filter((s) => s.enabled && ids.includes(s.id));
  }

  async add(v: ServerInput): Promise<McpServer> {
    const id = randomUUID();
    const at = Date.now();
    const headers = v.headers && Object.keys(v.headers).length ? needBox(this.box).seal(JSON.stringify(v.headers), headersContext(id)) : null;
    await this.unique(v.name, null, () =>
      this.store.run(`INSERT INTO mcp_servers (${COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`, [
        id,
        v.name,
        v.transport,
        v.url ?? null,
        v.command ?? null,
        JSON.stringify(v.args ?? []),
        headers,
        v.enabled === false ? 0 : 1,
        at,
      ]),
    );
    return this.get(id);
  }

  async update(id: string, v: ServerInput): Promise<McpServer> {
    const old = await this.get(id);
    const headers =
      v.headers === undefined
        ? Object.keys(old.headers).length
          ? needBox(this.box).seal(JSON.stringify(old.headers), headersContext(id))
          : null
        : v.headers && Object.keys(v.headers).length
          ? needBox(this.box).seal(JSON.stringify(v.headers), headersContext(id))
          : null;
    // updated_at moves forward even within one millisecond: the connection pool keys on it.
    const at = Math.max(Date.now(), old.updatedAt + 1);
    await this.unique(v.name, id, () =>
      this.store.run(
        `UPDATE mcp_servers SET name = $1, transport = $2, url = $3, command = $4, args = $5, headers = $6, enabled = $7, updated_at = $8 WHERE id = $9`,
        [v.name, v.transport, v.url ?? null, v.command ?? null, JSON.stringify(v.args ?? []), headers, v.enabled === false ? 0 : 1, at, id],
      ),
    );
    return this.get(id);
  }

  async remove(id: string): Promise<void> {
    await this.store.tx(async (q) => {
      await q.run('DELETE FROM mcp_user_headers WHERE server_id = $1', [id]);
      const n = await q.run('DELETE FROM mcp_servers WHERE id = $1', [id]);
      if (n === 0) throw new ApiError('NOT_FOUND', 'MCP server not found');
    });
  }

  /** The user's own headers for a server ({} when none). */
  async userHeaders(id: string, userId: string): Promise<Record<string, string>> {
    const r = await this.store.get<{ headers: string }>('SELECT headers FROM mcp_user_headers WHERE server_id = $1 AND user_id = $2', [id, userId]);
    return open(this.box, r?.headers ?? null, userHeadersContext(id, userId));
  }

  /** Which of the servers the user has stored headers for. */
  async userHeaderServers(userId: string): Promise<Set<string>> {
    const rows = await this.store.all<{ server_id: string }>('SELECT server_id FROM mcp_user_headers WHERE user_id = $1', [userId]);
    return new Set(rows.map((r) => r.server_id));
  }

  async setUserHeaders(id: string, userId: string, headers: Record<string, string> | null): Promise<void> {
    await this.get(id);
    await this.store.tx(async (q) => {
      await q.run('DELETE FROM mcp_user_headers WHERE server_id = $1 AND user_id = $2', [id, userId]);
      if (headers && Object.keys(headers).length) {
        const sealed = needBox(this.box).seal(JSON.stringify(headers), userHeadersContext(id, userId));
        await q.run('INSERT INTO mcp_user_headers (server_id, user_id, headers, updated_at) VALUES ($1, $2, $3, $4)', [id, userId, sealed, Date.now()]);
      }
    });
  }

  /** Names are unique regardless of case (the model sees them in tool names). */
  private async unique(name: string, self: string | null, write: () => Promise<unknown>): Promise<void> {
    const taken = () => new ApiError('INVALID_REQUEST', `An MCP server named ${name} already exists`, { param: 'name' });
    const same = await this.store.get<{ id: string }>('SELECT id FROM mcp_servers WHERE LOWER(name) = LOWER($1)', [name]);
    if (same && same.id !== self) throw taken();
    try {
      await write();
    } catch (e) {
      if (/unique|duplicate/i.test(String((e as Error).message))) throw taken();
      throw e;
    }
  }
}

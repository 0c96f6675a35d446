// The tools' routes: the operator adds, changes, tests and removes MCP servers (operator only, each in the audit
// log); a user lists the servers they may switch on for a chat and keeps their own headers for one (sealed).
import { z } from 'zod';
import { recordAudit } from '../accounts/operator.ts';
import { ApiError } from '../api/errors.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent } from '../http/app-route.ts';
import type { User } from '../users/users.ts';
import { CODE_RUNNER_ID, CODE_RUNNER_NAME } from './code-runner.ts';
import { checkServerUrl } from './guard.ts';
import { WEB_TOOLS_ID, WEB_TOOLS_NAME } from './web-tools.ts';
import { McpPool, messageOf } from './mcp-client.ts';
import { headersSchema, McpServers, type ServerInput, serverInputSchema, toAppServer } from './mcp-servers.ts';
import type { AppMcpServersResponse, AppToolsResponse, McpServerTestResult } from './wire.ts';

const BODY_LIMIT = 64 * 1024;
const patchSchema = serverInputSchema.partial();
const userHeadersSchema = z.strictObject({ headers: headersSchema.nullable() });

export function toolRoutes(deps: AppDeps) {
  const { svc } = deps;
  const servers = new McpServers(svc.store, svc.secrets);
  const cfg = svc.config.tools;
  // Tests from the operator page get their own short-lived pool: a test never reuses a chat's connection.
  const testPool = () => new McpPool({ allowHosts: svc.config.fetchAllowHosts, stdioAllowed: cfg.mcpStdio, idleMs: 1000, toolsTtlMs: 0 });

  const audit = (actor: User, action: 'mcp_add' | 'mcp_update' | 'mcp_remove', details: Record<string, unknown>) =>
    recordAudit(svc.store, { actorUserId: actor.id, actor: actor.email, action, accountId: '', details });

  /** A server's settings as they will be stored: the transport's own fields, and only those. */
  function checked(v: ServerInput): ServerInput {
    if (v.transport === 'http') {
      if (!v.url) throw new ApiError('INVALID_REQUEST', 'url: an HTTP MCP server needs its URL', { param: 'url' });
      const url = checkServerUrl(v.url, svc.config.fetchAllowHosts);
      return { name: v.name, transport: 'http', url: url.href, headers: v.headers, enabled: v.enabled };
    }
    if (!cfg.mcpStdio) {
      throw new ApiError('INVALID_REQUEST', 'This server does not run MCP servers as local programs: set LAGOON_MCP_STDIO=1 to allow stdio servers', {
        param: 'transport',
      });
    }
    if (!v.command) throw new ApiError('INVALID_REQUEST', 'command: a stdio MCP server needs the program to run', { param: 'command' });
    if (v.headers && Object.keys(v.headers).length) throw new ApiError('INVALID_REQUEST', 'headers: only an HTTP server takes headers', { param: 'headers' });
    return { name: v.name, transport: 'stdio', command: v.command, args: v.args ?? [], headers: null, enabled: v.enabled };
  }

  const where = (v: { transport: string; url?: string | null; command?: string | null }) => (v.transport === 'http' ? { url: v.url } : { command: v.command });

  return {
    operatorMcpServers: appRoute(deps, 'operator', async () => {
      const body: AppMcpServersResponse = { servers: (await servers.list()).map(toAppServer), stdioAllowed: cfg.mcpStdio };
      return json(body);
    }),

    operatorAddMcpServer: appRoute(deps, { auth: 'operator+csrf', body: serverInputSchema, bodyLimit: BODY_LIMIT }, async ({ session: { user }, body }) => {
      const s = await servers.add(checked(body));
      await audit(user, 'mcp_add', { name: s.name, transport: s.transport, ...where(s) });
      return json({ server: toAppServer(s) }, 201);
    }),

    operatorUpdateMcpServer: appRoute(
      deps,
      { auth: 'operator+csrf', body: patchSchema, bodyLimit: BODY_LIMIT },
      async ({ params, session: { user }, body }) => {
        const old = await servers.get(params.id ?? '');
        const merged = {
          name: body.name ?? old.name,
          transport: body.transport ?? old.transport,
          url: body.url ?? old.url ?? undefined,
          command: body.command ?? old.command ?? undefined,
          args: body.args ?? old.args,
          headers: body.headers,
          enabled: body.enabled ?? old.enabled,
        };
        const s = await servers.update(old.id, checked(merged));
        await audit(user, 'mcp_update', { name: s.name, enabled: s.enabled, ...where(s) });
        return json({ server: toAppServer(s) });
      },
    ),

    operatorRemoveMcpServer: appRoute(deps, 'operator+csrf', async ({ params, session: { user } }) => {
      const old = await servers.get(params.id ?? '');
      await servers.remove(old.id);
      await audit(user, 'mcp_remove', { name: old.name });
      return noContent();
    }),

    /** Connects and lists the server's tools: what the operator sees before switching it on for users. */
    operatorTestMcpServer: appRoute(deps, 'operator+csrf', async ({ params }) => {
      const s = await servers.get(params.id ?? '');
      const pool = testPool();
      const started = Date.now();
      let out: McpServerTestResult;
      try {
        const tools = await pool.tools(s, {}, AbortSignal.timeout(15_000));
        out = { ok: true, tools: tools.map((t) => ({ name: t.name, description: t.description })), ms: Date.now() - started };
      } catch (e) {
        out = { ok: false, tools: [], error: messageOf(e), ms: Date.now() - started };
      } finally {
        await pool.close();
      }
      return json(out);
    }),

    listTools: appRoute(deps, 'session', async ({ session: { user } }) => {
      const mine = await servers.userHeaderServers(user.id);
      const body: AppToolsResponse = {
        servers: (await servers.list())
          .filter((s) => s.enabled && (s.transport === 'http' || cfg.mcpStdio))
          .map((s) => ({ id: s.id, name: s.name, kind: 'mcp' as const, transport: s.transport, hasUserHeaders: mine.has(s.id) })),
      };
      body.servers.push({
        id: WEB_TOOLS_ID,
        name: svc.searchProviders.length ? WEB_TOOLS_NAME : 'Page fetch',
        kind: 'builtin',
        transport: null,
        hasUserHeaders: false,
      });
      if (cfg.codeRunner.enabled) body.servers.push({ id: CODE_RUNNER_ID, name: CODE_RUNNER_NAME, kind: 'builtin', transport: null, hasUserHeaders: false });
      return json(body);
    }),

    setToolHeaders: appRoute(deps, { auth: 'session+csrf', body: userHeadersSchema, bodyLimit: BODY_LIMIT }, async ({ params, session: { user }, body }) => {
      const s = await servers.get(params.id ?? '');
      if (!s.enabled) throw new ApiError('NOT_FOUND', 'MCP server not found');
      if (s.transport !== 'http' && body.headers) throw new ApiError('INVALID_REQUEST', 'headers: only an HTTP server takes headers', { param: 'headers' });
      await servers.setUserHeaders(s.id, user.id, body.headers);
      return noContent();
    }),
  };
}

// The tools one answer may call: those of the MCP servers the chat switched on (enabled by the operator), each
// named `<server>__<tool>` for the model, with the user's own headers where they stored some. A server that cannot
// be reached is left out (and said so) rather than failing the answer.
import { log } from '../log.ts';
import { secretInArguments } from './guard.ts';
import { type McpPool, messageOf } from './mcp-client.ts';
import type { McpServers } from './mcp-servers.ts';
import { capText, functionName, type Tool } from './tool.ts';

export interface ToolLimits {
  /** The most model rounds one answer makes. */
  maxRounds: number;
  /** The time one answer may spend in its loop (model rounds and tool calls). */
  totalMs: number;
  /** The time one tool call may take. */
  callTimeoutMs: number;
  /** A result longer than this is cut before the model reads it. */
  maxResultChars: number;
}

export interface ToolsDeps {
  servers: McpServers;
  pool: McpPool;
  limits: ToolLimits;
  /** Built-in tools by their switch id (`builtin:…`): each makes the tools it offers for this answer. */
  builtins?: Record<string, () => Tool[]>;
}

export interface ChatTools {
  tools: Tool[];
  /** Servers left out, with why (for the log and the answer's steps). */
  unavailable: { server: string; error: string }[];
}

/** The tools of the chat's switched-on servers, for this user. */
export async function chatTools(deps: ToolsDeps, userId: string, serverIds: readonly string[], signal: AbortSignal): Promise<ChatTools> {
  const servers = await deps.servers.enabledOf(serverIds);
  const tools: Tool[] = [];
  const unavailable: ChatTools['unavailable'] = [];
  const names = new Set<string>();
  const lists = await Promise.all(
    servers.map(async (server) => {
      const userHeaders = await deps.servers.userHeaders(server.id, userId);
      try {
        return { server, userHeaders, list: await deps.pool.tools(server, userHeaders, signal) };
      } catch (e) {
        log.warn({ err: e, server: server.name }, 'an MCP server left out of an answer');
        unavailable.push({ server: server.name, error: messageOf(e) });
        return { server, userHeaders, list: [] };
      }
    }),
  );
  for (const { server, userHeaders, list } of lists) {
    // A header's value, and the token inside `Bearer …`: neither may leave in a tool's arguments.
    const known = [...Object.values(server.headers), ...Object.values(userHeaders)].flatMap((v) => [v, v.replace(/^(bearer|basic|token)\s+/i, '')]);
    for (const t of list) {
      let name = functionName(`${functionName(server.name)}__${t.name}`);
      for (let i = 2; names.has(name); i++) name = `${name.slice(0, 60)}_${i}`;
      names.add(name);
      tools.push({
        name,
        description: t.description,
        parameters: t.inputSchema,
        server: server.name,
        async run(args, ctx) {
          const refused = secretInArguments(JSON.stringify(args), known);
          if (refused) return { text: `Not called: ${refused}.`, isError: true, truncated: false };
          const out = await deps.pool.call(server, userHeaders, t.name, args, { signal: ctx.signal, timeoutMs: deps.limits.callTimeoutMs });
          const capped = capText(out.text, deps.limits.maxResultChars);
          return { text: capped.text, isError: out.isError, truncated: capped.truncated };
        },
      });
    }
  }
  for (const id of serverIds) {
    for (const t of deps.builtins?.[id]?.() ?? []) {
      if (names.has(t.name)) continue;
      names.add(t.name);
      tools.push(t);
    }
  }
  return { tools, unavailable };
}

// The chat app's server-side tools as the browser sees them: the operator's MCP servers (admin page) and the tools a
// user may switch on for a chat. Types only.

export type McpTransport = 'http' | 'stdio';

/** An MCP server as the operator page shows it: never its headers' values, only their names. */
export interface AppMcpServer {
  id: string;
  name: string;
  transport: McpTransport;
  /** HTTP: the streamable-HTTP endpoint. */
  url: string | null;
  /** stdio: the program and its arguments. */
  command: string | null;
  args: string[];
  /** The names of the headers sent to it (their values are sealed and never shown again). */
  headerNames: string[];
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

/** POST /api/app/operator/mcp-servers (and PATCH, every field optional; `headers: null` removes them). */
export interface McpServerInput {
  name: string;
  transport: McpTransport;
  url?: string;
  command?: string;
  args?: string[];
  /** Sent on every request to an HTTP server (an API key, say); sealed at rest. */
  headers?: Record<string, string> | null;
  enabled?: boolean;
}

export interface AppMcpServersResponse {
  servers: AppMcpServer[];
  /** Whether this server lets the operator add stdio servers (LAGOON_MCP_STDIO). */
  stdioAllowed: boolean;
}

/** What POST /api/app/operator/mcp-servers/:id/test found: the tools it offers, or why it could not be reached. */
export interface McpServerTestResult {
  ok: boolean;
  tools: { name: string; description: string }[];
  error?: string;
  ms: number;
}

/** A tool source a user can switch on for a chat (GET /api/app/tools): an MCP server, or a built-in tool. */
export interface AppToolServer {
  id: string;
  name: string;
  kind: 'mcp' | 'builtin';
  /** An MCP server's transport; null for a built-in. */
  transport: McpTransport | null;
  /** The user has stored their own headers for it (PUT /api/app/tools/:id/headers). */
  hasUserHeaders: boolean;
}

export interface AppToolsResponse {
  servers: AppToolServer[];
}

/** PUT /api/app/tools/:id/headers: the user's own headers for an HTTP server (a personal token), sealed; null removes them. */
export interface UserToolHeadersRequest {
  headers: Record<string, string> | null;
}

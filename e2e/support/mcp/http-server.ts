// A test MCP server over streamable HTTP on loopback: the SDK's McpServer and StreamableHTTPServerTransport,
// stateless (a fresh server and transport per request, as the SDK's stateless example does). Counts the requests
// and keeps the Authorization headers it saw.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { testMcpServer } from './tools.ts';

export interface TestHttpMcp {
  url: string;
  requests: number;
  authorizations: string[];
  close(): Promise<void>;
}

export async function startHttpMcp(): Promise<TestHttpMcp> {
  const state = { requests: 0, authorizations: [] as string[] };
  const srv = http.createServer(async (req, res) => {
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    state.requests++;
    if (typeof req.headers.authorization === 'string') state.authorizations.push(req.headers.authorization);
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    const server = testMcpServer('http-test');
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get requests() {
      return state.requests;
    },
    get authorizations() {
      return state.authorizations;
    },
    close: () =>
      new Promise<void>((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  };
}

export const STDIO_SERVER = new URL('./stdio-server.ts', import.meta.url).pathname;

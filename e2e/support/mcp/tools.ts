// The tools of the test MCP servers (the SDK's own McpServer), the same over stdio and HTTP: real servers a test
// starts, whose answers the tests can predict.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A server named `name` with add, echo, big (n characters), slow (waits ms) and whoami (the Authorization it got). */
export function testMcpServer(name: string): McpServer {
  const server = new McpServer({ name, version: '1.0.0' });
  server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: `${a} + ${b} = ${a + b}` }],
  }));
  server.registerTool('echo', { description: 'Says the text back', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool('big', { description: 'Returns n characters', inputSchema: { n: z.number().int().min(0).max(10_000_000) } }, async ({ n }) => ({
    content: [{ type: 'text', text: 'x'.repeat(n) }],
  }));
  server.registerTool('slow', { description: 'Waits, then answers', inputSchema: { ms: z.number().int().min(0) } }, async ({ ms }, extra) => {
    await sleep(ms);
    return { content: [{ type: 'text', text: extra.signal.aborted ? 'aborted' : `waited ${ms} ms` }] };
  });
  server.registerTool('fail', { description: 'Always fails', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: 'the tool broke on purpose' }],
    isError: true,
  }));
  server.registerTool('whoami', { description: 'The Authorization header this request carried', inputSchema: {} }, async (_args, extra) => {
    const auth = extra.requestInfo?.headers?.authorization;
    return { content: [{ type: 'text', text: `authorization: ${typeof auth === 'string' ? auth : 'none'}` }] };
  });
  return server;
}

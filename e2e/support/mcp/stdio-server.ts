// A test MCP server over stdio (run as `node e2e/support/mcp/stdio-server.ts`): the SDK's McpServer on its stdio transport.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { testMcpServer } from './tools.ts';

await testMcpServer('stdio-test').connect(new StdioServerTransport());

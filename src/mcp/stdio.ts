import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Executor } from '../operations/executor.js';
import { guardTransport } from './protocol-errors.js';
import { createMcpServer } from './server.js';
import { callerWithToken, type Toolset } from './tools.js';

/**
 * MCP over stdio for one token. stdout carries protocol only: nothing else in this process may
 * write there (logs go to stderr or nowhere). The token is checked, and counted against its
 * quota, on every tool call.
 */
export async function serveStdio(
  executor: Executor,
  toolset: Toolset,
  token: string,
): Promise<() => Promise<void>> {
  const server = createMcpServer(executor, toolset, callerWithToken(executor, token));
  await server.connect(guardTransport(new StdioServerTransport()));
  return () => server.close();
}

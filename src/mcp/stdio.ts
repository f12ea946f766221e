import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { ErrorLogger } from '../errors.js';
import type { Executor } from '../operations/executor.js';
import { guardTransport } from './protocol-errors.js';
import { createMcpServer } from './server.js';
import { callerWithToken, type Toolset } from './tools.js';

/**
 * MCP over stdio for one token. stdout carries protocol only: nothing else in this process may
 * write there, so `logger` (failed tool calls) must write to stderr. The token is checked, and
 * counted against its quota, on every tool call.
 */
export async function serveStdio(
  executor: Executor,
  toolset: Toolset,
  token: string,
  logger: ErrorLogger,
): Promise<() => Promise<void>> {
  const server = createMcpServer(executor, toolset, callerWithToken(executor, token), logger);
  await server.connect(guardTransport(new StdioServerTransport()));
  return () => server.close();
}

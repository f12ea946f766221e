import {
  serveStdio as sdkServeStdio,
  StdioServerTransport,
} from '@modelcontextprotocol/server/stdio';
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
  // The SDK's stdio entry: the opening exchange decides the connection's revision (a 2025-era
  // initialize, or 2026-07-28's per-request envelope), and one server serves the connection.
  const caller = callerWithToken(executor, token);
  const connection = sdkServeStdio(() => createMcpServer(executor, toolset, caller, logger), {
    transport: guardTransport(new StdioServerTransport()),
  });
  return () => connection.close();
}

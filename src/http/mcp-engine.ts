/**
 * What /mcp answers with that is built on the MCP SDK: its server and Streamable HTTP transport,
 * the stateless revision's handler, the direct tool call's request schema. Loaded by the first
 * request to /mcp (`loadMcpEngine` in mcp-route.ts) or by `serve` before it listens
 * (`warmService`): the SDK and zod are a quarter of a second of a process's start, which the
 * processes that never answer MCP (most tests, the CLI's commands) no longer pay.
 */
export { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
export { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
export { createMcpServer } from '../mcp/server.js';
export { directToolCall, toolCallResponse } from './mcp-tool-call.js';
export { MODERN_PROTOCOL_VERSIONS, modernMcp } from './mcp-modern.js';

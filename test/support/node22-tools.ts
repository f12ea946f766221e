import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * MCP clients that need Node 22 (the official conformance tool, the MCP Inspector, the Vercel AI
 * SDK's MCP client) are installed apart from the project, in tools/mcp-conformance
 * (`npm ci --prefix tools/mcp-conformance`, which CI runs), with the Node 22 they run on, so that
 * it never shadows the project's own Node 20 and `npm install` at the root warns of no engine.
 */
export const TOOL_DIR = fileURLToPath(new URL('../../../tools/mcp-conformance/', import.meta.url));
export const NODE_22 = `${TOOL_DIR}node_modules/.bin/node`;
export const toolPath = (path: string) => `${TOOL_DIR}node_modules/${path}`;

/** Node 22 and each of the given files under tools/mcp-conformance/node_modules are there. */
export const toolsInstalled = (...paths: string[]) =>
  existsSync(NODE_22) && paths.every((p) => existsSync(toolPath(p)));

const ci = process.env.CI === 'true' || process.env.CI === '1';

/**
 * The `skip` option of a suite needing these tools: skipped with one line where they are not
 * installed, never in CI (there, the suite runs and fails loudly if they are missing).
 */
export function skipWithoutTools(...paths: string[]): string | false {
  return (
    !toolsInstalled(...paths) &&
    !ci &&
    'Node 22 MCP clients not installed: npm ci --prefix tools/mcp-conformance (CI installs them)'
  );
}

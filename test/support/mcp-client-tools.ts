import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * MCP clients the tests drive (the official conformance tool, the MCP Inspector, the Vercel AI
 * SDK's MCP client) are installed apart from the project, in tools/mcp-conformance
 * (`npm ci --prefix tools/mcp-conformance`, which CI runs), so that `npm install && npm start`
 * does not fetch them. They run on the project's own Node.js, the one running the tests.
 */
export const TOOL_DIR = fileURLToPath(new URL('../../../tools/mcp-conformance/', import.meta.url));
export const TOOL_NODE = process.execPath;
export const toolPath = (path: string) => `${TOOL_DIR}node_modules/${path}`;

/** Each of the given files under tools/mcp-conformance/node_modules is there. */
export const toolsInstalled = (...paths: string[]) => paths.every((p) => existsSync(toolPath(p)));

const ci = process.env.CI === 'true' || process.env.CI === '1';

/**
 * The `skip` option of a suite needing these tools: skipped with one line where they are not
 * installed, never in CI (there, the suite runs and fails loudly if they are missing).
 */
export function skipWithoutTools(...paths: string[]): string | false {
  return (
    !toolsInstalled(...paths) &&
    !ci &&
    'MCP client tools not installed: npm ci --prefix tools/mcp-conformance (CI installs them)'
  );
}

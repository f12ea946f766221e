import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { CLI } from '../support/cli.js';
import { startHarness, type Harness, DIALECTS } from '../support/harness.js';
import { TOOL_NODE, skipWithoutTools, toolPath } from '../support/mcp-client-tools.js';
import { OPERATIONS } from '../../src/operations/registry.js';

/** The MCP Inspector in CLI mode: a real third-party client, installed in tools/. */
const INSPECTOR_PATH = '@modelcontextprotocol/inspector/cli/build/cli.js';
const INSPECTOR = toolPath(INSPECTOR_PATH);
const run = promisify(execFile);

async function inspect(args: string[]) {
  const { stdout } = await run(TOOL_NODE, [INSPECTOR, '--cli', ...args], {
    timeout: 120_000,
    maxBuffer: 32 * 1024 * 1024,
  });
  return JSON.parse(stdout);
}

for (const dialect of DIALECTS) {
  describe(
    `the MCP Inspector (CLI mode) as a client (${dialect})`,
    { skip: skipWithoutTools(INSPECTOR_PATH) },
    () => {
      let h: Harness;
      let base: string;
      before(async () => {
        h = await startHarness({ dialect });
        base = await h.app.listen({ host: '127.0.0.1', port: 0 });
      });
      after(() => h.close());

      const stdio = () => [process.execPath, CLI, 'mcp', '--db', h.db, '--token', h.tokens.staff];
      const http = () => [
        `${base}/mcp`,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${h.tokens.staff}`,
      ];

      for (const [transport, target] of [
        ['stdio', stdio],
        ['streamable HTTP', http],
      ] as const) {
        it(`lists the 15 tools and calls one over ${transport}`, async () => {
          const listed = await inspect([...target(), '--method', 'tools/list']);
          assert.equal(listed.tools.length, OPERATIONS.length);
          const called = await inspect([
            ...target(),
            '--method',
            'tools/call',
            '--tool-name',
            'list_suppliers',
            '--tool-arg',
            'limit=2',
          ]);
          const envelope = JSON.parse(called.content[0].text);
          assert.equal(envelope.data.items.length, 2);
          assert.deepEqual(called.structuredContent, envelope.data);
        });
      }
    },
  );
}

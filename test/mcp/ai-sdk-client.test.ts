import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { OPERATIONS } from '../../src/operations/registry.js';
import { startHarness, type Harness, DIALECTS } from '../support/harness.js';
import { TOOL_NODE, skipWithoutTools, toolPath } from '../support/mcp-client-tools.js';

/**
 * Issue 13, item 7, checked by an independent client: the Vercel AI SDK's MCP client
 * (`@ai-sdk/mcp`, from tools/) lists the tools of a live server over streamable HTTP and
 * runs the example query run_semantic_query's description shows, as an agent would.
 */
const AI_SDK_PATH = '@ai-sdk/mcp/dist/index.js';
/** The client script is not compiled: it is read from test/support beside its source. */
const CLIENT = fileURLToPath(new URL('../../../test/support/ai-sdk-client.mjs', import.meta.url));
const run = promisify(execFile);

interface ClientReport {
  tools: { name: string; title?: string; description?: string }[];
  sdkToolNames: string[];
  example: { query: { metrics: string[]; dimensions: string[] } };
  result: {
    isError?: boolean;
    content: { type: string; text: string }[];
    structuredContent?: Record<string, unknown>;
  };
}

for (const dialect of DIALECTS) {
  describe(
    `the Vercel AI SDK's MCP client (@ai-sdk/mcp) over streamable HTTP (${dialect})`,
    { skip: skipWithoutTools(AI_SDK_PATH) },
    () => {
      let h: Harness;
      let report: ClientReport;
      before(async () => {
        h = await startHarness({ dialect });
        const base = await h.app.listen({ host: '127.0.0.1', port: 0 });
        const { stdout } = await run(
          TOOL_NODE,
          [CLIENT, toolPath(AI_SDK_PATH), `${base}/mcp`, h.tokens.staff],
          { timeout: 120_000, maxBuffer: 32 * 1024 * 1024 },
        );
        report = JSON.parse(stdout) as ClientReport;
      });
      after(() => h.close());

      it('lists the 15 tools, each with its title and a description that says when to use it', () => {
        assert.equal(report.tools.length, OPERATIONS.length);
        for (const op of OPERATIONS) {
          const tool = report.tools.find((t) => t.name === op.name);
          assert.ok(tool, op.name);
          assert.ok(tool.title, `${op.name} has a title`);
          assert.equal(tool.title, op.title);
          assert.equal(tool.description, op.description);
          assert.match(String(tool.description), /\bUse\b/);
        }
        assert.deepEqual(report.sdkToolNames, OPERATIONS.map((op) => op.name).sort());
      });

      it("runs the example query of run_semantic_query's description: status ok, with rows", () => {
        assert.notEqual(report.result.isError, true, JSON.stringify(report.result.content));
        const envelope = JSON.parse(report.result.content[0].text);
        assert.deepEqual(report.result.structuredContent, envelope.data);
        const data = envelope.data;
        assert.equal(data.status, 'ok');
        assert.ok(data.rows.length > 0);
        assert.deepEqual(data.columns, [
          ...report.example.query.dimensions,
          ...report.example.query.metrics,
        ]);
        assert.deepEqual(
          data.metricDefinitions.map((m: { unit: string }) => m.unit),
          report.example.query.metrics.map(() => 'cents'),
        );
      });
    },
  );
}

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { freePort } from '../support/cli.js';
import { startHarness, type Harness } from '../support/harness.js';
import {
  TOOL_NODE,
  skipWithoutTools,
  toolPath,
  toolsInstalled,
} from '../support/mcp-client-tools.js';

/** The official MCP conformance tool, installed in tools/ (support/mcp-client-tools.ts). */
const CONFORMANCE_PATH = '@modelcontextprotocol/conformance/dist/index.js';
const CONFORMANCE = toolPath(CONFORMANCE_PATH);

/** The server scenarios that apply to vms-read; the others call test tools, resources or prompts it does not have. */
const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'dns-rebinding-protection',
  'resources-list',
];

/**
 * The tool's client sends no token, and /mcp requires one: a proxy in front adds it, as an MCP
 * client configured with a token would, and passes Host and Origin through untouched.
 */
function tokenProxy(target: () => number, token: string): Server {
  return createServer((incoming, outgoing) => {
    const upstream = request(
      {
        host: '127.0.0.1',
        port: target(),
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.once('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
}

describe(
  'MCP conformance: the official server scenarios that apply',
  {
    skip: skipWithoutTools(CONFORMANCE_PATH),
  },
  () => {
    let h: Harness;
    let proxy: Server;
    let url: string;
    before(async () => {
      assert.ok(
        toolsInstalled(CONFORMANCE_PATH),
        'tools/mcp-conformance is not installed (npm ci --prefix tools/mcp-conformance)',
      );
      const proxyPort = await freePort();
      // The server's public URL is the proxy's, as for any server behind one.
      h = await startHarness({
        origins: { publicUrl: `http://localhost:${proxyPort}`, allowedOrigins: [] },
      });
      const serverPort = Number(new URL(await h.app.listen({ host: '127.0.0.1', port: 0 })).port);
      proxy = tokenProxy(() => serverPort, h.tokens.staff);
      await new Promise<void>((resolve) => proxy.listen(proxyPort, '127.0.0.1', resolve));
      url = `http://localhost:${proxyPort}/mcp`;
    });
    after(async () => {
      // Only what `before` got to start: a failed `before` must leave its own message standing.
      if (proxy) {
        proxy.closeAllConnections();
        await new Promise((resolve) => proxy.close(resolve));
      }
      await h?.close();
    });

    for (const scenario of SCENARIOS) {
      it(`passes ${scenario}`, async () => {
        const { stdout } = await promisify(execFile)(
          TOOL_NODE,
          [CONFORMANCE, 'server', '--url', url, '--scenario', scenario],
          { timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } },
        ).catch((error: { stdout?: string; stderr?: string }) => {
          assert.fail(`${scenario} failed:\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
        });
        assert.match(stdout, /Passed: (\d+)\/\1, 0 failed/);
      });
    }
  },
);

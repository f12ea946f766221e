/**
 * Issue 32, "done when": `npm start` (`vms-read demo`), then an MCP client of the SDK v2 given
 * only the URL of /mcp signs in through the demo's sign-in page (one click on a demo account)
 * and calls tools.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type CallToolResult,
} from '@modelcontextprotocol/client';
import { CLI, exitOf, freePort, startServer } from '../support/cli.js';
import { assertEnvelope, newClient } from '../support/mcp-client.js';
import { personWith, TestBrowser, TestOAuthHost } from '../support/oauth-browser.js';
import { until } from '../support/until.js';
import { OPERATIONS } from '../../src/operations/registry.js';

describe('vms-read demo: an MCP host added by URL signs in with a demo account', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vms-demo-'));
  let server: Awaited<ReturnType<typeof startServer>>;
  let mcp: URL;
  before(async () => {
    const port = await freePort();
    server = await startServer(['demo', '--port', String(port)], port, { LOG_LEVEL: 'warn' }, dir);
    mcp = new URL(`http://127.0.0.1:${port}/mcp`);
  });
  after(async () => {
    server.child.kill('SIGTERM');
    await exitOf(server.child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('offers the demo accounts on its sign-in page, and the client calls tools after one click', async () => {
    const pages: string[] = [];
    const person = personWith({ demo: 'staff' });
    const host = new TestOAuthHost(
      new TestBrowser((page) => {
        pages.push(page.html);
        return person(page);
      }),
    );
    const first = newClient();
    await assert.rejects(
      first.connect(new StreamableHTTPClientTransport(mcp, { authProvider: host })),
      UnauthorizedError,
    );
    const transport = new StreamableHTTPClientTransport(mcp, { authProvider: host });
    await transport.finishAuth(host.takeCallback());
    const signInPage = pages.find((html) => html.includes('name="key"')) ?? '';
    for (const label of ['Staff, every scope', 'A worker', 'A billing entity'])
      assert.ok(signInPage.includes(`>${label}</button>`), label);
    const client = newClient();
    await client.connect(transport);
    try {
      assert.equal((await client.listTools()).tools.length, OPERATIONS.length);
      const data = assertEnvelope(
        (await client.callTool({ name: 'list_catalog', arguments: {} })) as CallToolResult,
      );
      assert.ok((data.metrics as unknown[]).length > 0);
    } finally {
      await client.close();
    }
  });

  it('prints its banner whole: the log lines written so far come before it, none inside', async () => {
    // Both streams into one file, as a terminal shows them; the database is there already.
    const port = await freePort();
    const file = join(dir, 'console.txt');
    const out = openSync(file, 'w');
    const child = spawn(process.execPath, [CLI, 'demo', '--port', String(port)], {
      cwd: dir,
      env: { ...process.env, LOG_LEVEL: 'info' },
      stdio: ['ignore', out, out],
    });
    try {
      await until(
        () =>
          fetch(`http://127.0.0.1:${port}/healthz`).then(
            (r) => r.ok,
            () => false,
          ),
        60_000,
      );
      await until(() => readFileSync(file, 'utf8').includes('Try:'), 10_000);
      const lines = readFileSync(file, 'utf8').split('\n');
      const first = lines.findIndex((line) => line.startsWith('vms-read demo is serving'));
      const last = lines.findIndex((line) => line.includes('/api/v1/workers?limit=2'));
      assert.ok(first > 0 && last > first, lines.join('\n'));
      const inside = lines.slice(first, last + 1).filter((line) => line.startsWith('{'));
      assert.deepEqual(inside, [], 'no log line inside the banner');
      const before = lines.slice(0, first).join('\n');
      for (const logged of ['reports warmed', 'Server listening'])
        assert.match(before, new RegExp(logged));
    } finally {
      child.kill('SIGTERM');
      await exitOf(child);
      closeSync(out);
    }
  });
});

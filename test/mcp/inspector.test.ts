import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { CLI, freePort } from '../support/cli.js';
import { startHarness, type Harness, DIALECTS } from '../support/harness.js';
import { TOOL_NODE, skipWithoutTools, toolPath } from '../support/mcp-client-tools.js';
import { personWith, TestBrowser } from '../support/oauth-browser.js';
import { OPERATIONS } from '../../src/operations/registry.js';

/**
 * The MCP Inspector's CLI (2.12, pinned in tools/mcp-conformance): a real third-party client.
 * With an access key as a header, over stdio and streamable HTTP; and by the server's URL alone,
 * signing in with OAuth as its CLI does: it registers itself, prints the authorization URL and
 * waits on its loopback callback, where a person's browser (here the HTTP test browser, entering
 * the key and allowing) sends it back.
 */
const INSPECTOR_PATH = '@modelcontextprotocol/inspector/clients/launcher/build/index.js';
const INSPECTOR = toolPath(INSPECTOR_PATH);
const run = promisify(execFile);
/** The call every run makes: two suppliers. */
const CALL = ['--method', 'tools/call', '--tool-name', 'list_suppliers', '--tool-arg', 'limit=2'];

/** Its home (the catalog file it keeps) in a directory of the test's own; secrets in memory. */
const home = mkdtempSync(join(tmpdir(), 'vms-read-inspector-'));
after(() => rmSync(home, { recursive: true, force: true }));
const inspectorEnv = () => ({
  ...process.env,
  HOME: home,
  MCP_INSPECTOR_SECRET_STORE: 'memory',
});

async function inspect(args: string[]) {
  const { stdout } = await run(TOOL_NODE, [INSPECTOR, '--cli', ...args], {
    timeout: 120_000,
    maxBuffer: 32 * 1024 * 1024,
    env: inspectorEnv(),
  });
  return JSON.parse(stdout);
}

/**
 * The CLI by URL alone: OAuth as a person would go through it. Resolves with what it printed and
 * its exit code once it ends.
 */
function inspectSigningIn(
  args: string[],
  key: string,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    void freePort().then((port) => {
      const callback = `http://127.0.0.1:${port}/oauth/callback`;
      const child = spawn(TOOL_NODE, [INSPECTOR, '--cli', ...args, '--callback-url', callback], {
        // Past a TTY check: it opens no browser here (none is installed), and prints the URL.
        env: { ...inspectorEnv(), MCP_AUTO_OPEN_ENABLED: 'true', BROWSER: 'true' },
      });
      let out = '';
      let err = '';
      let browsing = false;
      const timer = setTimeout(() => child.kill(), 120_000);
      child.stdout.on('data', (chunk) => (out += chunk));
      child.stderr.on('data', (chunk) => {
        err += chunk;
        const asked = /Please navigate to: (\S+)/.exec(err);
        if (!asked || browsing) return;
        browsing = true;
        new TestBrowser(personWith({ key }))
          .authorize(new URL(asked[1]), callback)
          .then((back) => fetch(back))
          .then((answer) => answer.arrayBuffer())
          .catch(reject);
      });
      child.on('error', reject);
      child.on('exit', (code) => {
        clearTimeout(timer);
        if (!browsing) reject(new Error(`it never asked to sign in: ${err}`));
        else resolve({ code, out });
      });
    }, reject);
  });
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
          const called = await inspect([...target(), ...CALL]);
          const envelope = JSON.parse(called.content[0].text);
          assert.equal(envelope.data.items.length, 2);
          assert.deepEqual(called.structuredContent, envelope.data);
        });
      }
    },
  );
}

describe(
  "the MCP Inspector's CLI signing in with OAuth, by the server's URL alone",
  { skip: skipWithoutTools(INSPECTOR_PATH) },
  () => {
    let h: Harness;
    let base: string;
    before(async () => {
      h = await startHarness({ oauthServer: true });
      base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(() => h.close());

    it('registers, sends the person to sign in and allow, and calls a tool with its token', async () => {
      const { code, out } = await inspectSigningIn([`${base}/mcp`, ...CALL], h.tokens.staff);
      // No key was given to it: the token it called with is the one the sign-in granted.
      assert.equal(code, 0, out);
      const called = JSON.parse(out);
      assert.equal(JSON.parse(called.content[0].text).data.items.length, 2);
    });
  },
);

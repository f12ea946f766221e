/**
 * The command as the build leaves it runs from its bundle (scripts/build-cli.mjs,
 * dist/bundle/cli/): no compiled module of src/ but its entry, no package's files but the native
 * ones and pino. What the bundled code finds by its own address is found: the page, the API
 * reference, the sign-in pages' style sheet, the MCP report view (the last two fail soft when
 * missing, so they are asked for here), and both worker threads (row-store reports, the access
 * trail's writes).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { REPORT_VIEW_URI } from '../../src/mcp/report-view.js';
import { CLI, exitOf, freePort, runCli } from '../support/cli.js';
import { staffToken } from '../support/harness.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { until } from '../support/until.js';

/** Run first by `--import`: every module the process loads, printed on stderr at exit. */
const LIST_MODULES =
  'data:text/javascript,' +
  encodeURIComponent(
    "import module from 'node:module'; const urls = new Set();" +
      'module.registerHooks({ load(url, context, next) { urls.add(url); return next(url, context); } });' +
      "process.on('exit', () => process.stderr.write('\\nloaded ' + JSON.stringify([...urls]) + '\\n'));",
  );

/** The modules a process listed at its exit, as paths below the repository. */
function modulesOf(stderr: string): string[] {
  const line = /\nloaded (\[.*\])\n/.exec(stderr);
  assert.ok(line, `no module list in: ${stderr.slice(-500)}`);
  const root = new URL('../../../', import.meta.url).href;
  return (JSON.parse(line[1]) as string[])
    .filter((url) => url.startsWith(root))
    .map((url) => url.slice(root.length));
}

/** What may load from outside the bundle: its entry, the native modules, pino and its own. */
const OUTSIDE_PACKAGES = [
  'better-sqlite3',
  'bindings',
  'file-uri-to-path',
  '@duckdb/node-bindings[^/]*',
  'detect-libc',
  'pino',
  'pino-[^/]+',
  '@pinojs/[^/]+',
  'thread-stream',
  'sonic-boom',
  'atomic-sleep',
  'on-exit-leak-free',
  'quick-format-unescaped',
  'safe-stable-stringify',
  'real-require',
];
const OUTSIDE_THE_BUNDLE = new RegExp(
  `^(dist/src/cli/main\\.js|node_modules/(${OUTSIDE_PACKAGES.join('|')})/.*)$`,
);

function assertBundled(modules: string[]) {
  assert.ok(
    modules.some((m) => m.startsWith('dist/bundle/cli/')),
    `nothing loaded from the bundle; ${modules.length} modules, first ${modules.slice(0, 5).join(', ')}`,
  );
  const outside = modules.filter(
    (m) => !m.startsWith('dist/bundle/cli/') && !OUTSIDE_THE_BUNDLE.test(m),
  );
  assert.deepEqual(outside, []);
}

describe('the bundled command (sqlite)', { timeout: 120_000 }, () => {
  let database: TestDatabase;
  let token: string;
  before(async () => {
    database = await openTestDatabase('sqlite');
    token = await staffToken(database.store);
  });
  after(() => database.drop());

  it('runs a command from the bundle, DuckDB in it', () => {
    const version = runCli(['--version']);
    assert.equal(version.status, 0, version.stderr);
    // facts refresh writes a columnar copy: DuckDB's package is bundled, its native part not.
    const run = spawnSync(
      process.execPath,
      ['--import', LIST_MODULES, CLI, 'facts', 'refresh', '--db', database.db],
      { encoding: 'utf8' },
    );
    assert.equal(run.status, 0, run.stderr);
    const modules = modulesOf(run.stderr);
    assertBundled(modules);
    assert.ok(
      modules.some((m) => m.startsWith('node_modules/@duckdb/node-bindings/')),
      'DuckDB not loaded',
    );
  });

  it('serves, from the bundle, what its code finds by its own address, and runs both worker threads', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let stderr = '';
    const child = spawn(
      process.execPath,
      ['--import', LIST_MODULES, CLI, 'serve', '--db', database.db, '--port', String(port)],
      {
        // Reports from the row store run on the report worker threads.
        env: { ...process.env, LOG_LEVEL: 'silent', VMS_READ_REPORT_ENGINE: 'row' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    child.stderr.on('data', (d) => (stderr += d));
    const auth = { authorization: `Bearer ${token}` };
    try {
      await until(async () => (await fetch(`${base}/healthz`).catch(() => null))?.status === 200);
      const page = await fetch(`${base}/app`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<script[^>]+\/app\/assets\/app\.js/);
      assert.equal((await fetch(`${base}/app/assets/app.js`)).status, 200);
      const reference = await fetch(`${base}/docs/assets/swagger-ui.css`);
      assert.equal(reference.status, 200);
      const css = await fetch(`${base}/oauth/pages.css`);
      assert.equal(css.status, 200);
      assert.match(await css.text(), /\.card/);

      const report = await fetch(`${base}/api/v1/reports/query`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: { metrics: ['spend'] } }),
      });
      assert.equal(report.status, 200, await report.clone().text());
      assert.ok(((await report.json()) as { data: { rows: unknown[] } }).data.rows.length > 0);

      const client = new Client({ name: 'bundle-test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: auth },
        }),
      );
      try {
        const view = (await client.readResource({ uri: REPORT_VIEW_URI })).contents[0] as {
          text?: string;
        };
        assert.match(view.text ?? '', /^<!doctype html>/i);
      } finally {
        await client.close();
      }
    } finally {
      child.kill('SIGTERM');
      await exitOf(child);
    }
    assert.equal(child.exitCode, 0, stderr);
    assertBundled(modulesOf(stderr));

    // The access trail's writes ran on their thread: the answers above are in it, and whole.
    const trail = runCli(['audit', 'list', '--db', database.db, '--json']);
    assert.equal(trail.status, 0, trail.stderr);
    const operations = trail.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { operation: string }).operation);
    assert.ok(operations.includes('run_semantic_query'), operations.join(', '));
    assert.equal(runCli(['audit', 'verify', '--db', database.db]).status, 0);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, exitOf, freePort, runCli, startServer } from '../support/cli.js';
import { newClient } from '../support/mcp-client.js';
import { TEST_PG_URL } from '../support/test-databases.js';

/**
 * Two `serve` instances on one PostgreSQL database, sharing VMS_READ_SECRET: stateless instances
 * behind a load balancer. Every CLI command takes the postgres:// URL as --db.
 */
describe(
  'several instances on one PostgreSQL database',
  { skip: !TEST_PG_URL && 'no PostgreSQL test cluster' },
  () => {
    let db: string;
    let token: string;
    const servers: Awaited<ReturnType<typeof startServer>>[] = [];
    const bases: string[] = [];
    const env = { VMS_READ_SECRET: 'shared-secret-of-the-fleet', VMS_READ_QUOTA_PER_MINUTE: '0' };

    before(async () => {
      const name = `scale_${process.pid}`;
      const admin = new pg.Client({ connectionString: TEST_PG_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const url = new URL(TEST_PG_URL as string);
      url.pathname = `/${name}`;
      db = url.toString();
      const seeded = runCli([
        'seed',
        '--db',
        db,
        '--scale',
        'tiny',
        '--seed',
        '3',
        '--as-of',
        '2026-06-30',
      ]);
      assert.equal(seeded.status, 0, seeded.stderr);
      const created = runCli([
        'token',
        'create',
        '--db',
        db,
        '--workspace',
        'ws_business',
        '--role',
        'staff',
        '--scopes',
        'read:workforce,read:financial,read:program',
      ]);
      assert.equal(created.status, 0, created.stderr);
      token = created.stdout.trim();
      for (let i = 0; i < 2; i++) {
        const port = await freePort();
        servers.push(await startServer(['serve', '--db', db, '--port', String(port)], port, env));
        bases.push(`http://127.0.0.1:${port}`);
      }
    });
    after(async () => {
      for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGTERM');
      await Promise.all(servers.map((s) => exitOf(s.child)));
      const admin = new pg.Client({ connectionString: TEST_PG_URL });
      await admin.connect();
      await admin
        .query(`DROP DATABASE IF EXISTS scale_${process.pid} WITH (FORCE)`)
        .finally(() => admin.end());
    });

    const getJson = async (base: string, path: string) =>
      (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } })).json();
    const postJson = async (base: string, path: string, body: unknown) =>
      (
        await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json();

    it('continues a list on one instance with a cursor issued by the other', async () => {
      const first = (await getJson(bases[0], '/api/v1/workers?limit=5')).data;
      const second = (await getJson(bases[1], `/api/v1/workers?limit=5&cursor=${first.nextCursor}`))
        .data;
      const whole = (await getJson(bases[1], '/api/v1/workers?limit=10')).data;
      assert.deepEqual(
        [...first.items, ...second.items].map((w: { id: string }) => w.id),
        whole.items.map((w: { id: string }) => w.id),
      );
    });

    it('continues a report on one instance with a cursor issued by the other', async () => {
      const query = { metrics: ['hours_worked'], dimensions: ['work_date'], limit: 600 };
      const first = (await postJson(bases[1], '/api/v1/reports/query', { query })).data;
      assert.equal(first.truncatedBy, 'row_budget');
      const second = (
        await postJson(bases[0], '/api/v1/reports/query', { query, cursor: first.nextCursor })
      ).data;
      assert.equal(second.status, 'ok');
      assert.equal(first.rows.length + second.rows.length, 600);
    });

    it('sees a catalog change and a saved query made through the CLI on both instances', async () => {
      const before = (await getJson(bases[0], '/api/v1/reports/catalog')).data.catalogVersion;
      const changed = runCli([
        'catalog',
        'disable',
        '--db',
        db,
        '--workspace',
        'ws_business',
        '--metric',
        'expense_count',
      ]);
      assert.equal(changed.status, 0, changed.stderr);
      const versions = await Promise.all(
        bases.map(async (b) => (await getJson(b, '/api/v1/reports/catalog')).data.catalogVersion),
      );
      assert.notEqual(versions[0], before);
      assert.equal(versions[0], versions[1]);
      const created = runCli([
        'saved-query',
        'create',
        '--db',
        db,
        '--workspace',
        'ws_business',
        '--kind',
        'library',
        '--name',
        'Invoices by status',
        '--definition',
        JSON.stringify({ query: { metrics: ['invoice_count'], dimensions: ['invoice_status'] } }),
      ]);
      assert.equal(created.status, 0, created.stderr);
      const run = (
        await postJson(bases[1], '/api/v1/reports/saved-queries/run', {
          savedQueryId: created.stdout.trim(),
        })
      ).data;
      assert.equal(run.status, 'ok');
    });

    it('serves MCP over stdio from the same database', async () => {
      const client = newClient();
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [CLI, 'mcp', '--db', db, '--token', token],
          stderr: 'pipe',
        }),
      );
      try {
        assert.equal((await client.listTools()).tools.length, 15);
      } finally {
        await client.close();
      }
    });
  },
);

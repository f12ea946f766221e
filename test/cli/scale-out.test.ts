import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { rmSync } from 'node:fs';
import { openStore } from '../../src/store/open-store.js';
import type { SqlStore } from '../../src/store/sql-store.js';
import { CLI, exitOf, freePort, reportsByEngine, runCli, startServer } from '../support/cli.js';
import { entriesDir } from '../support/import-files.js';
import { newClient } from '../support/mcp-client.js';
import { TEST_PG_URL } from '../support/test-databases.js';
import { OPERATIONS } from '../../src/operations/registry.js';

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
    const env = {
      VMS_READ_SECRET: 'shared-secret-of-the-fleet-of-two-instances',
      VMS_READ_QUOTA_PER_MINUTE: '0',
      VMS_READ_METRICS: '1',
    };

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

    it("brings both instances' columnar copies to a load of ten rows by a patch, none written anew", async () => {
      const count = async (base: string) =>
        Number(
          (
            await postJson(base, '/api/v1/reports/query', {
              query: { metrics: ['time_entry_count'], dimensions: [] },
            })
          ).data.rows[0].time_entry_count,
        );
      // Both answer from their copies before the load.
      const before = await count(bases[0]);
      for (const [i, base] of bases.entries()) {
        const port = Number(new URL(base).port);
        const ran = (await reportsByEngine(port)).duckdb ?? 0;
        assert.equal(await count(base), before, `instance ${i}`);
        assert.ok(((await reportsByEngine(port)).duckdb ?? 0) >= ran, `instance ${i}`);
      }
      const store = await openStore(db);
      const files = await entriesDir((sql) => (store as SqlStore).all(sql), 10, 'te_fleet_');
      await store.close();
      try {
        const loaded = runCli(['import', '--db', db, '--workspace', 'ws_business', files]);
        assert.equal(loaded.status, 0, loaded.stderr);
      } finally {
        rmSync(files, { recursive: true, force: true });
      }
      for (const [i, base] of bases.entries()) {
        const port = Number(new URL(base).port);
        // Every answer reflects the load; soon one comes from the instance's own patched copy
        // (a report waits for a patch in progress; a deadline, not a duration, bounds this loop).
        let fromCopy = false;
        for (let attempt = 0; attempt < 120 && !fromCopy; attempt++) {
          const ran = (await reportsByEngine(port)).duckdb ?? 0;
          assert.equal(await count(base), before + 10, `instance ${i}`);
          fromCopy = ((await reportsByEngine(port)).duckdb ?? 0) > ran;
          if (!fromCopy) await new Promise((resolve) => setTimeout(resolve, 250));
        }
        assert.ok(fromCopy, `instance ${i} answered from its copy`);
        const log = servers[i].output();
        assert.match(
          log,
          /columnar report facts patched to version \d+: \d+ rows/,
          `instance ${i}`,
        );
        assert.doesNotMatch(
          log,
          /columnar report facts written/,
          `instance ${i} wrote no whole copy`,
        );
      }
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
        assert.equal((await client.listTools()).tools.length, OPERATIONS.length);
      } finally {
        await client.close();
      }
    });
  },
);

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { createToken } from '../../src/auth/tokens.js';
import { seedStore } from '../../src/cli/seed-command.js';
import { createService } from '../../src/service.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { ALL_SCOPES, WS } from '../support/harness.js';
import { postgresBinaries, startCluster, type PgCluster } from '../support/pg-cluster.js';
import { TINY } from '../support/test-databases.js';

/** Polls until `check` holds; a bounded wait, so a regression fails instead of hanging. */
async function eventually(check: () => Promise<boolean>, what: string, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe(
  'PostgreSQL going away and coming back',
  { skip: !postgresBinaries() && 'PostgreSQL binaries not found' },
  () => {
    // A cluster of its own: stopping the shared test cluster would break the other test files.
    let cluster: PgCluster;
    let store: PostgresStore;
    let app: FastifyInstance;
    let token: string;
    let base: string;
    before(async () => {
      cluster = await startCluster();
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      await admin.query('CREATE DATABASE faults');
      await admin.end();
      store = new PostgresStore(cluster.url.replace(/\/postgres$/, '/faults'), {
        answerTimeoutMs: 1000,
      });
      await store.migrate();
      await seedStore(store, TINY);
      token = await createToken(
        store,
        { workspaceId: WS, role: 'staff', scopes: ALL_SCOPES },
        new Date(),
      );
      ({ app } = await createService({ store, secret: 'faults', quotaPerMinute: 0 }));
      base = await app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(async () => {
      await app?.close();
      await store?.close();
      cluster?.destroy();
    });

    const workers = () =>
      fetch(`${base}/api/v1/workers?limit=1`, {
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(15_000),
      });
    const report = () =>
      fetch(`${base}/api/v1/reports/query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: { metrics: ['invoice_count'] } }),
        signal: AbortSignal.timeout(15_000),
      });
    const health = () => fetch(`${base}/healthz`, { signal: AbortSignal.timeout(15_000) });

    it('answers 503 unavailable (not 500, not a hang) while the database is down, and /healthz is not ready', async () => {
      assert.equal((await workers()).status, 200);
      assert.equal((await report()).status, 200);
      cluster.stop();
      const down = await workers();
      assert.equal(down.status, 503);
      const body = await down.json();
      assert.equal(body.error.code, 'unavailable');
      assert.equal(down.headers.get('retry-after'), '1');
      const downReport = await report();
      assert.equal(downReport.status, 503);
      assert.equal((await downReport.json()).error.code, 'unavailable');
      const healthz = await health();
      assert.equal(healthz.status, 503);
      assert.equal((await healthz.json()).error.code, 'unavailable');
    });

    it('resumes by itself when the database returns', async () => {
      cluster.start();
      await eventually(async () => (await health()).status === 200, '/healthz to answer 200');
      assert.equal((await workers()).status, 200);
      assert.equal((await report()).status, 200);
    });
  },
);

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exitOf, freePort, startServer } from '../support/cli.js';
import { staffToken } from '../support/harness.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

describe('vms-read serve with VMS_READ_METRICS=1', () => {
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startServer>>;
  let base: string;
  let token: string;
  before(async () => {
    database = await openTestDatabase('sqlite');
    token = await staffToken(database.store);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = await startServer(['serve', '--db', database.db, '--port', String(port)], port, {
      VMS_READ_METRICS: '1',
      LOG_LEVEL: 'silent',
    });
  });
  after(async () => {
    if (server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await exitOf(server.child);
    }
    await database.drop();
  });

  it('serves /metrics on the same port without a token, counting the requests it answered', async () => {
    const workers = await fetch(`${base}/api/v1/workers?limit=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(workers.status, 200);
    const metrics = await fetch(`${base}/metrics`);
    assert.equal(metrics.status, 200);
    assert.equal(metrics.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    const text = await metrics.text();
    assert.match(
      text,
      /^vms_read_requests_total\{operation="list_workers",status="200",transport="rest"\} 1$/m,
    );
    assert.match(text, /^process_cpu_user_seconds_total /m);
    assert.ok(!text.includes(token));
  });
});

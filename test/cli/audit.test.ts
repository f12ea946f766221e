/**
 * The access trail through the command (DESIGN §4.17): `vms-read serve` keeps it by default; on
 * SIGTERM every answered request's event is written; `audit list`, `audit worker` (JSON lines
 * and OCSF) read it newest first with their filters; `audit verify` exits 0, and 1 naming the
 * event once one is changed. Both stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exitOf, freePort, runCli, startServer } from '../support/cli.js';
import { staffToken } from '../support/harness.js';
import { DIALECTS, openTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { auditSqlOf } from '../support/audit.js';

const WS = 'ws_business';

for (const dialect of DIALECTS)
  describe(`vms-read audit (${dialect})`, { timeout: 120_000 }, () => {
    let database: TestDatabase;
    let worker = '';
    const requestIds: string[] = [];
    before(async () => {
      database = await openTestDatabase(dialect);
      const token = await staffToken(database.store);
      worker = (
        await database.one<{ id: string }>(
          'SELECT worker_id AS id FROM timesheets WHERE workspace_id = ? LIMIT 1',
          WS,
        )
      ).id;
      const port = await freePort();
      const { child } = await startServer(
        ['serve', '--db', database.db, '--port', String(port)],
        port,
        { LOG_LEVEL: 'silent' },
      );
      const base = `http://127.0.0.1:${port}`;
      for (const path of [
        `/api/v1/workers/item?id=${worker}`,
        `/api/v1/timesheets?workerId=${worker}&limit=2`,
        '/api/v1/suppliers?limit=1',
      ]) {
        const answer = await fetch(`${base}${path}`, {
          headers: { authorization: `Bearer ${token}`, 'user-agent': 'audit-test/1' },
        });
        assert.equal(answer.status, 200);
        requestIds.push(answer.headers.get('x-request-id') as string);
      }
      // SIGTERM right away: the events are written before the process ends.
      child.kill('SIGTERM');
      assert.equal(await exitOf(child), 0);
    });
    after(() => database.drop());

    const cli = (args: string[]) => runCli(['audit', ...args, '--db', database.db]);
    const lines = (text: string) =>
      text
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));

    it('keeps every request answered before SIGTERM, newest first', () => {
      const listed = cli(['list', '--json']);
      assert.equal(listed.status, 0, listed.stderr);
      const events = lines(listed.stdout);
      assert.deepEqual(
        events.filter((e) => requestIds.includes(e.requestId)).map((e) => e.requestId),
        [...requestIds].reverse(),
      );
      assert.equal(events[0].userAgent, 'audit-test/1');
      assert.equal(events[0].address, '127.0.0.1');
    });

    it('answers who saw a worker, with the records naming it', () => {
      const answer = cli(['worker', '--workspace', WS, '--worker', worker, '--json']);
      assert.equal(answer.status, 0, answer.stderr);
      const events = lines(answer.stdout);
      assert.deepEqual(
        events.map((e) => e.operation),
        ['list_timesheets', 'get_worker'],
      );
      assert.ok(events[1].revealed[0].personalData, "the worker's own record carried its name");
      assert.ok(events[0].revealed.every((r: { worker: string }) => r.worker === worker));
      const filtered = cli(['list', '--workspace', WS, '--operation', 'get_worker', '--json']);
      assert.deepEqual(
        lines(filtered.stdout).map((e) => e.requestId),
        [requestIds[0]],
      );
    });

    it('writes OCSF API Activity for a SIEM', () => {
      const answer = cli(['worker', '--workspace', WS, '--worker', worker, '--format', 'ocsf']);
      const [newest] = lines(answer.stdout);
      assert.equal(newest.class_uid, 6003);
      assert.equal(newest.activity_id, 2);
      assert.equal(newest.api.operation, 'list_timesheets');
      assert.equal(newest.src_endpoint.ip, '127.0.0.1');
      assert.ok(newest.resources.length > 0);
    });

    it('finds a worker without --workspace (ids are unique), and refuses a bad date', () => {
      const alone = cli(['list', '--worker', worker, '--json']);
      assert.equal(alone.status, 0, alone.stderr);
      const inWorkspace = cli(['worker', '--workspace', WS, '--worker', worker, '--json']);
      assert.deepEqual(lines(alone.stdout), lines(inWorkspace.stdout));
      assert.equal(lines(alone.stdout).length, 2);
      assert.equal(cli(['list', '--since', 'yesterday']).status, 2);
    });

    it('writes prev and hash in every output of an event', () => {
      const [json] = lines(cli(['list', '--json']).stdout);
      const [ocsf] = lines(cli(['list', '--format', 'ocsf']).stdout);
      assert.match(json.prev, /^[0-9a-f]{64}$|^start:/);
      assert.match(json.hash, /^[0-9a-f]{64}$/);
      assert.equal(ocsf.unmapped.prev, json.prev);
      assert.equal(ocsf.unmapped.hash, json.hash);
    });

    it('verifies the chain, and exits 1 naming an event that was changed', async () => {
      const clean = cli(['verify']);
      assert.equal(clean.status, 0, clean.stderr);
      assert.ok(JSON.parse(clean.stdout).events >= 3);
      const sql = auditSqlOf(database);
      const [first] = await sql.all('SELECT * FROM audit_events ORDER BY at LIMIT 1', []);
      await sql.run('UPDATE audit_events SET event = ? WHERE chain_id = ? AND seq = ?', [
        String(first.event).replace('audit-test/1', 'someone-else/1'),
        first.chain_id,
        first.seq,
      ]);
      const broken = cli(['verify']);
      assert.equal(broken.status, 1);
      assert.match(
        broken.stderr,
        new RegExp(`chain ${first.chain_id}, event ${first.seq}: changed`),
      );
    });
  });

describe('the access trail across a crash (sqlite)', { timeout: 120_000 }, () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase('sqlite');
  });
  after(() => database.drop());

  it('loses at most the last second: what was answered a second before SIGKILL is kept', async () => {
    const token = await staffToken(database.store);
    const port = await freePort();
    const { child } = await startServer(
      ['serve', '--db', database.db, '--port', String(port)],
      port,
      { LOG_LEVEL: 'silent' },
    );
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const answer = await fetch(`http://127.0.0.1:${port}/api/v1/suppliers?limit=1`, {
        headers: { authorization: `Bearer ${token}` },
      });
      ids.push(answer.headers.get('x-request-id') as string);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    child.kill('SIGKILL');
    await exitOf(child);
    const listed = runCli(['audit', 'list', '--db', database.db, '--json']);
    assert.equal(listed.status, 0, listed.stderr);
    const kept = new Set(
      listed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).requestId),
    );
    assert.deepEqual(
      ids.filter((id) => !kept.has(id)),
      [],
    );
    assert.equal(runCli(['audit', 'verify', '--db', database.db]).status, 0);
  });
});

/**
 * On PostgreSQL a token's flood of reads does not cost another token its answers (issue 56).
 * Thirty requests of one token for a timesheet, each holding a connection of a pool of two for
 * 250 ms (a query that sleeps, standing in for a large answer on a loaded machine); once they
 * all wait at the store, another token asks for a page of workers. Before, the pool served its
 * queries first come, first served: the other token's waited behind the thirty (some 3.5 s) and
 * was refused 503 past its 2 s. Now operations take turns at the store client by client
 * (store-turns.ts): it waits for one of them, is answered 200, and before most of them.
 * SQLite reads in process, synchronously: it has no pool to share, and no turns.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Executor } from '../../src/operations/executor.js';
import { createService } from '../../src/service.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { DIALECTS, get, staffToken } from '../support/harness.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';
import { until } from '../support/until.js';

const FLOOD = 30;
const POOL = 2;
const ON_POSTGRES = { skip: !DIALECTS.includes('postgres') && 'no PostgreSQL here' };

describe('a token flooding the store leaves another token its turn (postgres)', ON_POSTGRES, () => {
  let db: TestDatabase;
  let store: PostgresStore;
  let app: FastifyInstance;
  let executor: Executor;
  let flooder: string;
  let other: string;
  let path: string;
  /** Requests of the flood that reached the read of the entries. */
  let atEntries = 0;
  let startSlowReads = () => {};
  const slowReads = new Promise<void>((resolve) => (startSlowReads = resolve));
  before(async () => {
    db = await openTestDatabase('postgres');
    flooder = await staffToken(db.store);
    other = await staffToken(db.store);
    const [{ id }] = await db.all<{ id: string }>(
      'SELECT timesheet_id AS id FROM time_entries GROUP BY timesheet_id ORDER BY COUNT(*) DESC, timesheet_id LIMIT 1',
    );
    path = `/api/v1/timesheets/item?id=${id}`;
    store = new PostgresStore(db.db, { poolSize: POOL });
    ({ app, executor } = await createService({ store, secret: 'test-secret', quotaPerMinute: 0 }));
    await app.ready();
    // Each timesheet's entries are read after a query that holds its connection 250 ms, once
    // the test lets them: then all the flood's slow queries ask for a connection at once.
    const entries = store.timesheetEntries.bind(store);
    store.timesheetEntries = async (...args) => {
      atEntries++;
      await slowReads;
      await store.all('SELECT pg_sleep(0.25)', []);
      return entries(...args);
    };
  });
  after(async () => {
    await app.close();
    await store.close();
    await db.drop();
  });

  it('answers the other token 200 while the flood waits, before most of the flood', async () => {
    const order: string[] = [];
    const flood = Array.from({ length: FLOOD }, () =>
      get(app, path, flooder).then((answer) => {
        order.push(`flood ${answer.status}`);
        return answer;
      }),
    );
    // Every request of the flood is past its authentication: at the slow read, or waiting for
    // a turn to start its operation.
    await until(() => atEntries + (executor.deps.storeTurns?.state().waiting ?? 0) >= FLOOD);
    startSlowReads();
    const answer = await get(app, '/api/v1/workers?limit=5', other);
    order.push(`other ${answer.status}`);
    assert.equal(answer.status, 200, answer.raw);
    const before = order.indexOf('other 200');
    assert.ok(before < FLOOD / 2, `answered after ${before} of the flood's ${FLOOD}`);
    await Promise.all(flood);
  });
});

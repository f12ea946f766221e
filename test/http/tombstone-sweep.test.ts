/**
 * A server removes the change feed's tombstones past VMS_READ_TOMBSTONE_DAYS at least hourly
 * (DESIGN §4.13), not only when a load commits: on a mocked clock, an hour after the start a
 * tombstone older than the horizon is gone and the horizon moved; without the setting nothing
 * sweeps.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import { createService, TOMBSTONE_SWEEP_MS } from '../../src/service.js';
import { openTestDatabase, type TestDatabase } from '../support/test-databases.js';

const WS = 'ws_business';

/** A load that deletes one expense, keeping its tombstone (30 days). */
async function deleteAnExpense(db: TestDatabase): Promise<void> {
  const [expense] = await db.all<{ id: string }>(
    'SELECT id FROM expenses WHERE workspace_id = ? ORDER BY id LIMIT 1',
    WS,
  );
  const load = await db.store.openLoad({ tombstoneDays: 30 });
  await load.remove(WS, [
    {
      type: 'expense',
      id: expense.id,
      deleted_at: new Date().toISOString(),
      file: 'd.csv',
      line: 2,
    },
  ]);
  await load.finish();
}

const tombstones = async (db: TestDatabase) =>
  Number((await db.one<{ n: number }>('SELECT COUNT(*) AS n FROM record_deletions')).n);

describe('the hourly sweep of tombstones', () => {
  afterEach(() => mock.timers.reset());

  for (const days of [0, undefined])
    it(`with tombstoneDays ${String(days)}: ${days === undefined ? 'sweeps nothing' : 'removes those past the horizon an hour after the start'}`, async () => {
      const db = await openTestDatabase('sqlite');
      try {
        await deleteAnExpense(db);
        assert.equal(await tombstones(db), 1);
        mock.timers.enable({ apis: ['setInterval'] });
        const { app } = await createService({ store: db.store, tombstoneDays: days });
        try {
          mock.timers.tick(TOMBSTONE_SWEEP_MS);
          // The sweep runs on the store's own promise: let it finish.
          for (let i = 0; i < 50 && (await tombstones(db)) > 0 && days !== undefined; i++)
            await new Promise((resolve) => setImmediate(resolve));
          assert.equal(await tombstones(db), days === undefined ? 1 : 0);
          const horizon = await db.store.getMeta('tombstone_horizon');
          assert.equal(horizon === null, days === undefined);
        } finally {
          await app.close();
        }
      } finally {
        await db.drop();
      }
    });
});

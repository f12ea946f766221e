/**
 * The horizon of the feed's tombstones (DESIGN §4.13): a tombstone is kept `days` days after the
 * load that made it (`removed_at`, that load's clock), then removed, with the change log row of a
 * deleted record and the fact deletions the columnar copies read. `meta.tombstone_horizon` keeps
 * the newest version of a removed tombstone: a feed cursor at or before it could have missed one
 * (`cursor_expired`), and a columnar copy behind it is written anew.
 */
import { DEFAULT_TOMBSTONE_DAYS } from '../../config.js';
import { TOMBSTONE_HORIZON_KEY } from './change-log.js';

export { DEFAULT_TOMBSTONE_DAYS };

const DAY_MS = 86_400_000;

interface Session {
  all(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}

/** The horizon as stored: 0 while no tombstone was ever removed. */
export async function tombstoneHorizon(
  all: (sql: string, params: readonly unknown[]) => Promise<Record<string, unknown>[]>,
): Promise<number> {
  const [row] = await all('SELECT value FROM meta WHERE key = ?', [TOMBSTONE_HORIZON_KEY]);
  return row ? Number(row.value) : 0;
}

/**
 * Removes the tombstones made `days` days or more before `clock` (with 0, every one, this load's
 * too); returns how many. Runs in the caller's write transaction.
 */
export async function sweepTombstones(
  session: Session,
  days: number,
  clock: Date,
  upsertMeta: string,
): Promise<number> {
  const cutoff = new Date(clock.getTime() - days * DAY_MS).toISOString();
  const [newest] = await session.all(
    `SELECT MAX(v) AS v FROM (
       SELECT MAX(version) AS v FROM record_deletions WHERE removed_at <= ?
       UNION ALL SELECT MAX(version) AS v FROM audience_changes WHERE reason IS NOT NULL AND removed_at <= ?) x`,
    [cutoff, cutoff],
  );
  if (newest?.v === null || newest?.v === undefined) return 0;
  const horizon = Math.max(
    Number(newest.v),
    await tombstoneHorizon((sql, p) => session.all(sql, p)),
  );
  await session.run(
    `DELETE FROM record_changes WHERE EXISTS (SELECT 1 FROM record_deletions d
       WHERE d.type = record_changes.type AND d.id = record_changes.id AND d.removed_at <= ?)`,
    [cutoff],
  );
  let removed = await session.run('DELETE FROM record_deletions WHERE removed_at <= ?', [cutoff]);
  removed += await session.run(
    'DELETE FROM audience_changes WHERE reason IS NOT NULL AND removed_at <= ?',
    [cutoff],
  );
  await session.run('DELETE FROM fact_deletions WHERE version <= ?', [horizon]);
  await session.run(upsertMeta, [TOMBSTONE_HORIZON_KEY, String(horizon)]);
  return removed;
}

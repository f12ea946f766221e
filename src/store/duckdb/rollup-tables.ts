import type { DuckDBConnection } from '@duckdb/node-api';
import { FACT_COUNT, ROLLUPS, type HeldRollup, type Rollup } from '../../semantic/rollups.js';
import { createTableSql } from '../dialect.js';
import type { Table } from '../table.js';
import { COLUMNAR_TABLES } from './columnar-tables.js';
import { duckdbDialect } from './duckdb-dialect.js';

/**
 * The rollups of the columnar copy (src/semantic/rollups.ts says which and why): written with a
 * base, checked when a copy opens (a copy from before a rollup existed, or of another definition,
 * gets it written then), and kept exact by every patch, which sums again the months its changed
 * facts were in and are in now. `facts_rollups` names each rollup with its definition.
 */

/** Months changed, as a share of a table's months, past which its rollups are summed whole. */
const WHOLE_SHARE = 0.25;

const ROLLUPS_META = 'facts_rollups';

/** A rollup as a table: the workspace, the month's first day, the keys, the sums, the count. */
function rollupTable(rollup: Rollup): Table {
  const facts = COLUMNAR_TABLES.find((c) => c.table.name === rollup.table)?.table;
  if (!facts) throw new Error(`no columnar table ${rollup.table}`);
  return {
    name: rollup.name,
    columns: {
      workspace_id: 'text!',
      [rollup.time]: 'text!',
      ...Object.fromEntries(rollup.keys.map((k) => [k, facts.columns[k]])),
      ...Object.fromEntries(rollup.sums.map((s) => [s, 'bigint'])),
      [FACT_COUNT]: 'bigint!',
    },
    primaryKey: [],
  };
}

/** `INSERT` of a rollup's rows summed from `source` (the fact table, or some of its rows). */
function fillSql(rollup: Rollup, source: string, where = ''): string {
  const columns = [
    'workspace_id',
    `substr(${rollup.time}, 1, 7) || '-01'`,
    ...rollup.keys,
    ...rollup.sums.map((s) => `CAST(SUM(${s}) AS BIGINT)`),
    'COUNT(*)',
  ];
  return `INSERT INTO ${rollup.name} SELECT ${columns.join(', ')} FROM ${source}${where} GROUP BY ALL`;
}

const definitionOf = (rollup: Rollup) => JSON.stringify(rollup);

async function writeRollup(connection: DuckDBConnection, rollup: Rollup): Promise<void> {
  await connection.run(`DROP TABLE IF EXISTS ${rollup.name}`);
  await connection.run(createTableSql(duckdbDialect, rollupTable(rollup)));
  await connection.run(fillSql(rollup, rollup.table));
  await connection.run(`DELETE FROM ${ROLLUPS_META} WHERE name = ?`, [rollup.name]);
  await connection.run(`INSERT INTO ${ROLLUPS_META} VALUES (?, ?)`, [
    rollup.name,
    definitionOf(rollup),
  ]);
}

/**
 * Makes the copy hold every rollup as defined now, summed from its facts: all of them in a new
 * base; in a copy opened from an older base, those missing or defined otherwise (and drops those
 * no longer defined). Returns the names written. In one transaction, unless the caller holds one.
 */
export async function ensureRollups(
  connection: DuckDBConnection,
  inTransaction = false,
): Promise<string[]> {
  await connection.run(
    `CREATE TABLE IF NOT EXISTS ${ROLLUPS_META} (name VARCHAR NOT NULL, definition VARCHAR NOT NULL)`,
  );
  const held = new Map(
    (await connection.runAndReadAll(`SELECT name, definition FROM ${ROLLUPS_META}`))
      .getRows()
      .map(([name, definition]) => [String(name), String(definition)]),
  );
  const stale = ROLLUPS.filter((r) => held.get(r.name) !== definitionOf(r));
  const gone = [...held.keys()].filter((name) => !ROLLUPS.some((r) => r.name === name));
  if (stale.length === 0 && gone.length === 0) return [];
  if (!inTransaction) await connection.run('BEGIN TRANSACTION');
  try {
    for (const name of gone) {
      await connection.run(`DROP TABLE IF EXISTS ${name}`);
      await connection.run(`DELETE FROM ${ROLLUPS_META} WHERE name = ?`, [name]);
    }
    for (const rollup of stale) await writeRollup(connection, rollup);
    if (!inTransaction) await connection.run('COMMIT');
  } catch (error) {
    if (!inTransaction) await connection.run('ROLLBACK').catch(() => {});
    throw error;
  }
  return stale.map((r) => r.name);
}

/** The rollups the copy holds and their rows (the compiler takes the smallest that covers). */
export async function heldRollups(connection: DuckDBConnection): Promise<HeldRollup[]> {
  const held: HeldRollup[] = [];
  for (const rollup of ROLLUPS) {
    const reader = await connection.runAndReadAll(`SELECT COUNT(*) FROM ${rollup.name}`);
    held.push({ rollup, rows: Number(reader.getRows()[0][0]) });
  }
  return held;
}

/** The temporary table of the months a patch touches in a fact table. */
const TOUCHED = 'touched_months';

/**
 * Before a patch replaces the facts of `table` whose ids are in the temporary table `delta`:
 * notes the months (per workspace) of the rows it replaces and of the rows it brings. False when
 * the table has no rollups.
 */
export async function noteTouchedMonths(
  connection: DuckDBConnection,
  table: string,
): Promise<boolean> {
  const rollups = ROLLUPS.filter((r) => r.table === table);
  if (rollups.length === 0) return false;
  const time = rollups[0].time;
  await connection.run(
    `CREATE OR REPLACE TEMP TABLE ${TOUCHED} AS SELECT DISTINCT workspace_id, substr(${time}, 1, 7) || '-01' AS month FROM (` +
      `SELECT workspace_id, ${time} FROM ${table} WHERE id IN (SELECT id FROM delta) ` +
      `UNION ALL SELECT workspace_id, ${time} FROM delta)`,
  );
  return true;
}

const nextMonth = (month: string) => {
  const d = new Date(`${month}T00:00:00Z`);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
};

/**
 * After the patch replaced the facts: sums again the months noted, in every rollup of `table`.
 * The facts of those months are read once, a month at a time (each a narrow range of the table's
 * row groups), into a scratch table the rollups are summed from; when more than a quarter of the
 * table's months changed, the rollups are summed whole from the table instead.
 */
export async function refreshTouchedMonths(
  connection: DuckDBConnection,
  table: string,
): Promise<void> {
  const rollups = ROLLUPS.filter((r) => r.table === table);
  const touched = (await connection.runAndReadAll(`SELECT workspace_id, month FROM ${TOUCHED}`))
    .getRows()
    .map(([workspace, month]) => ({ workspace: String(workspace), month: String(month) }));
  if (touched.length > 0) await sumAgain(connection, table, rollups, touched);
  await connection.run(`DROP TABLE ${TOUCHED}`);
}

async function sumAgain(
  connection: DuckDBConnection,
  table: string,
  rollups: Rollup[],
  touched: { workspace: string; month: string }[],
): Promise<void> {
  const months = Number(
    (
      await connection.runAndReadAll(
        `SELECT COUNT(*) FROM (SELECT DISTINCT workspace_id, ${rollups[0].time} FROM ${rollups[0].name})`,
      )
    ).getRows()[0][0],
  );
  if (touched.length > WHOLE_SHARE * months) {
    for (const rollup of rollups) {
      await connection.run(`DELETE FROM ${rollup.name}`);
      await connection.run(fillSql(rollup, table));
    }
  } else {
    const time = rollups[0].time;
    const columns = [
      ...new Set(['workspace_id', time, ...rollups.flatMap((r) => [...r.keys, ...r.sums])]),
    ];
    const scratch = 'touched_facts';
    const select = `SELECT ${columns.join(', ')} FROM ${table} WHERE workspace_id = ? AND ${time} >= ? AND ${time} < ?`;
    await connection.run(`CREATE OR REPLACE TEMP TABLE ${scratch} AS ${select} LIMIT 0`, [
      '',
      '',
      '',
    ]);
    for (const { workspace, month } of touched)
      await connection.run(`INSERT INTO ${scratch} ${select}`, [
        workspace,
        month,
        nextMonth(month),
      ]);
    for (const rollup of rollups) {
      await connection.run(
        `DELETE FROM ${rollup.name} r USING ${TOUCHED} t WHERE r.workspace_id = t.workspace_id AND r.${rollup.time} = t.month`,
      );
      await connection.run(fillSql(rollup, scratch));
    }
    await connection.run(`DROP TABLE ${scratch}`);
  }
}

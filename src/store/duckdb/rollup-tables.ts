import type { DuckDBConnection } from '@duckdb/node-api';
import { FACT_COUNT, ROLLUPS, type HeldRollup, type Rollup } from '../../semantic/rollups.js';
import { createTableSql } from '../dialect.js';
import type { Table } from '../table.js';
import { COLUMNAR_TABLES } from './columnar-tables.js';
import { duckdbDialect } from './duckdb-dialect.js';

/**
 * The rollups of the columnar copy (src/semantic/rollups.ts says which and why): written with a
 * base, checked when a copy opens (a copy from before a rollup existed, or of another definition,
 * gets it written then), and kept exact by every patch, which adds to them what it changed
 * (applyRollupChange). `facts_rollups` names each rollup with its definition.
 */

const ROLLUPS_META = 'facts_rollups';

/** A rollup as a table: the workspace, the month's first day, the keys, each sum and its count of values, the count of facts. */
function rollupTable(rollup: Rollup): Table {
  const facts = COLUMNAR_TABLES.find((c) => c.table.name === rollup.table)?.table;
  if (!facts) throw new Error(`no columnar table ${rollup.table}`);
  return {
    name: rollup.name,
    columns: {
      workspace_id: 'text!',
      [rollup.time]: 'text!',
      ...Object.fromEntries(rollup.keys.map((k) => [k, facts.columns[k]])),
      ...Object.fromEntries(
        rollup.sums.flatMap((s) => [
          [s, 'bigint'],
          [valuesOf(s), 'bigint!'],
        ]),
      ),
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
    ...rollup.sums.flatMap((s) => [`CAST(SUM(${s}) AS BIGINT)`, `COUNT(${s})`]),
    'COUNT(*)',
  ];
  return `INSERT INTO ${rollup.name} SELECT ${columns.join(', ')} FROM ${source}${where} GROUP BY ALL`;
}

/** A rollup's definition as a copy records it; `format` changes with the table's shape. */
const definitionOf = (rollup: Rollup) => JSON.stringify({ format: 2, ...rollup });

/** Beside each sum, how many values it sums (a sum of none is NULL): `<column>_values`. */
export const valuesOf = (sum: string) => `${sum}_values`;

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

/** The temporary table of the facts a patch takes out (sign -1) and brings (sign 1). */
const CHANGE = 'rollup_change';

/**
 * After a patch replaced facts of `table` (the temporary tables `replaced`, the rows taken out,
 * and `delta`, those brought in): adds the change to every rollup of `table`, exactly. Per
 * rollup, the change is summed by its keys (facts taken out counted negative); the rollup's rows
 * with those keys and the summed change are added up; those rows are replaced by the totals, and
 * a row left with no facts goes. A sum is NULL where its count of values is 0, as SUM over no
 * values is. So a patch costs what it changed, not the months it touched.
 */
export async function applyRollupChange(
  connection: DuckDBConnection,
  table: string,
): Promise<void> {
  const rollups = ROLLUPS.filter((r) => r.table === table);
  if (rollups.length === 0) return;
  const columns = [
    ...new Set([
      'workspace_id',
      rollups[0].time,
      ...rollups.flatMap((r) => [...r.keys, ...r.sums]),
    ]),
  ].join(', ');
  await connection.run(
    `CREATE OR REPLACE TEMP TABLE ${CHANGE} AS SELECT ${columns}, -1 AS sign FROM replaced ` +
      `UNION ALL SELECT ${columns}, 1 AS sign FROM delta`,
  );
  for (const rollup of rollups) {
    const keys = ['workspace_id', rollup.time, ...rollup.keys];
    const same = keys.map((k) => `r.${k} IS NOT DISTINCT FROM d.${k}`).join(' AND ');
    const summed = rollup.sums.flatMap((s) => [
      `SUM(sign * ${s}) AS ${s}`,
      `SUM(CASE WHEN ${s} IS NULL THEN 0 ELSE sign END) AS ${valuesOf(s)}`,
    ]);
    await connection.run(
      `CREATE OR REPLACE TEMP TABLE rollup_step AS SELECT workspace_id, ` +
        `substr(${rollup.time}, 1, 7) || '-01' AS ${rollup.time}, ${rollup.keys.join(', ')}, ` +
        `${summed.join(', ')}, SUM(sign) AS ${FACT_COUNT} FROM ${CHANGE} GROUP BY ALL`,
    );
    const totals = [
      ...rollup.sums.flatMap((s) => [`SUM(${s}) AS ${s}`, `SUM(${valuesOf(s)}) AS ${valuesOf(s)}`]),
      `SUM(${FACT_COUNT}) AS ${FACT_COUNT}`,
    ];
    await connection.run(
      `CREATE OR REPLACE TEMP TABLE rollup_total AS SELECT ${keys.join(', ')}, ${totals.join(', ')} FROM (` +
        `SELECT r.* FROM ${rollup.name} r SEMI JOIN rollup_step d ON ${same} ` +
        `UNION ALL BY NAME SELECT * FROM rollup_step) GROUP BY ALL`,
    );
    await connection.run(`DELETE FROM ${rollup.name} r USING rollup_step d WHERE ${same}`);
    const row = [
      ...keys,
      ...rollup.sums.flatMap((s) => [`CASE WHEN ${valuesOf(s)} > 0 THEN ${s} END`, valuesOf(s)]),
      FACT_COUNT,
    ];
    await connection.run(
      `INSERT INTO ${rollup.name} SELECT ${row.join(', ')} FROM rollup_total WHERE ${FACT_COUNT} > 0`,
    );
  }
  await connection.run(`DROP TABLE IF EXISTS rollup_step`);
  await connection.run(`DROP TABLE IF EXISTS rollup_total`);
  await connection.run(`DROP TABLE ${CHANGE}`);
}

import { rmSync } from 'node:fs';
import type { DataVersion, FactSnapshot, FactSource } from '../store.js';
import { EXPORT_PAGE, exportSome, readCsvSql } from './build-facts.js';
import { COLUMNAR_TABLES, type ColumnarTable } from './columnar-tables.js';
import type { DuckdbFacts } from './duckdb-facts.js';
import { tombstoneHorizon } from '../sql/tombstones.js';
import { deltaSql, goneSql, MOVED_SQL, type MovedRecords } from './fact-export.js';
import { partialPath } from './facts-files.js';
import { applyRollupChange } from './rollup-tables.js';

/**
 * About how many rows a patch from `version` would bring, before reading them: the records
 * changed (counted in the change log's index) and, for each changed timesheet and invoice, as
 * many entries and lines as the copy holds on average. So a change too large to patch is known
 * at once, not after exporting rows that would be thrown away.
 */
async function estimatedRows(
  snapshot: FactSnapshot,
  version: number,
  copied: Record<string, number>,
): Promise<number> {
  const changed = async (type: string) =>
    Number(
      (
        await snapshot.all(
          'SELECT COUNT(*) AS n FROM record_changes WHERE type = ? AND version > ?',
          [type, version],
        )
      )[0]?.n ?? 0,
    );
  const perParent = (parts: string, parents: string) =>
    (copied[parts] ?? 0) / Math.max(1, copied[parents] ?? 0);
  let rows = 0;
  for (const type of ['worker', 'assignment', 'expense']) rows += await changed(type);
  const timesheets = await changed('timesheet');
  const invoices = await changed('invoice');
  rows += timesheets * (1 + perParent('report_time_entries', 'timesheets'));
  rows += invoices * (1 + perParent('report_invoice_lines', 'invoices'));
  return rows;
}

/** Lines of CSV read from the row store per page (build-facts.ts says why so few). */
const PAGE = EXPORT_PAGE;

/** Moved assignments and workers a patch takes (each a query parameter). */
const MAX_MOVED = 10_000;

/**
 * What bringing a copy to the row store's version came to: nothing to do; patched; or not
 * patchable (another epoch: the facts were rebuilt whole or the data cleared; or more changed
 * than `maxShare` of the copy's rows, where writing a new copy costs less than patching).
 */
export type PatchOutcome =
  | { kind: 'current' }
  | { kind: 'patched'; version: DataVersion; rows: number; ms: number }
  | { kind: 'rebuild'; reason: 'epoch' | 'size' | 'horizon' };

/**
 * Applying the rows to the copy failed: DuckDB rolled back, but a failed write may leave its
 * database unusable, so the copy is dropped. (A failure before, reading the row store or writing
 * the scratch files, leaves the copy as it was, and it is kept.)
 */
export class PatchApplyError extends Error {
  constructor(cause: unknown) {
    super(`the columnar copy could not be patched: ${(cause as Error)?.message ?? String(cause)}`, {
      cause,
    });
  }
}

export interface PatchOptions {
  /** The folder scratch CSV files go in (the copies' folder). */
  dir: string;
  /** Rows changed, as a share of the copy's rows, above which a new copy is written instead. */
  maxShare: number;
}

interface Delta {
  copy: ColumnarTable;
  file: string;
  rows: number;
  /** The ids of rows taken out (deletions), and how many. */
  goneFile: string;
  gone: number;
}

/**
 * Brings `facts` from its data version to the row store's by applying what changed in between
 * (DESIGN §4.11): from one snapshot of the row store, each columnar table's changed rows
 * (fact-export.ts) go to a scratch CSV file; then, in one DuckDB transaction, each table's rows
 * with those ids are replaced by them, and what that changed is added to its rollups
 * (rollup-tables.ts). Reports keep reading the copy as it was until the
 * transaction commits. Scratch files are removed, whatever happens.
 */
export async function patchColumnarFacts(
  facts: DuckdbFacts,
  source: FactSource,
  options: PatchOptions,
): Promise<PatchOutcome> {
  const started = performance.now();
  const held = facts.version;
  const copied = await facts.tableRows();
  const limit = Math.floor(options.maxShare * Object.values(copied).reduce((a, b) => a + b, 0));
  const deltas: Delta[] = [];
  try {
    const exported = await source.factSnapshot(async (snapshot) => {
      if (snapshot.version.epoch !== held.epoch)
        return { kind: 'rebuild', reason: 'epoch' } as const;
      if (snapshot.version.version <= held.version) return { kind: 'current' } as const;
      // The deletions it would need were removed with their tombstones (sql/tombstones.ts).
      if (held.version < (await tombstoneHorizon(snapshot.all)))
        return { kind: 'rebuild', reason: 'horizon' } as const;
      if ((await estimatedRows(snapshot, held.version, copied)) > limit)
        return { kind: 'rebuild', reason: 'size' } as const;
      const moved: MovedRecords = { assignments: [], workers: [] };
      for (const { kind, id } of await snapshot.all(MOVED_SQL, [held.version]))
        moved[kind === 'assignment' ? 'assignments' : 'workers'].push(String(id));
      // Thousands of assignments or workers moved (a reorganisation): a new copy costs less.
      if (moved.assignments.length + moved.workers.length > MAX_MOVED)
        return { kind: 'rebuild', reason: 'size' } as const;
      let rows = 0;
      for (const copy of COLUMNAR_TABLES) {
        const sql = deltaSql(copy, held.version, moved);
        const file = `${partialPath(options.dir, `delta-${copy.table.name}`)}.csv`;
        const goneFile = `${partialPath(options.dir, `gone-${copy.table.name}`)}.csv`;
        const gone = goneSql(copy, held.version);
        const goneLines = snapshot.lines(gone.lines, gone.params, PAGE)[Symbol.asyncIterator]();
        let goneRows: number;
        try {
          goneRows = await exportSome(goneLines, goneFile, limit - rows + 1);
        } finally {
          await goneLines.return?.();
        }
        rows += goneRows;
        deltas.push({ copy, file, rows: 0, goneFile, gone: goneRows });
        const lines = snapshot.lines(sql.lines, sql.params, PAGE);
        const iterator = lines[Symbol.asyncIterator]();
        try {
          // One file per table, cut short when the patch has grown past its worth.
          deltas[deltas.length - 1].rows = await exportSome(iterator, file, limit - rows + 1);
        } finally {
          await iterator.return?.();
        }
        rows += deltas[deltas.length - 1].rows;
        if (rows > limit) return { kind: 'rebuild', reason: 'size' } as const;
      }
      return { kind: 'export', version: snapshot.version, rows } as const;
    });
    if (exported.kind !== 'export') return exported;
    await facts
      .patch(exported.version, async (connection) => {
        for (const { copy, file, rows, goneFile, gone } of deltas) {
          if (rows === 0 && gone === 0) continue;
          const name = copy.table.name;
          await connection.run(
            rows > 0
              ? `CREATE TEMP TABLE delta AS ${readCsvSql(copy.table, file)}`
              : `CREATE TEMP TABLE delta AS SELECT * FROM ${name} WHERE false`,
          );
          await connection.run(
            gone > 0
              ? `CREATE TEMP TABLE gone AS SELECT * FROM read_csv('${goneFile.replace(/'/g, "''")}', header = false, quote = '"', escape = '"', auto_detect = false, columns = {'id': 'VARCHAR'})`
              : 'CREATE TEMP TABLE gone (id VARCHAR)',
          );
          // The rows replaced or deleted, found by id once (a scan of the table), then removed by row id.
          await connection.run(
            `CREATE TEMP TABLE replaced AS SELECT rowid AS replaced_row, * FROM ${name} WHERE id IN (SELECT id FROM delta UNION ALL SELECT id FROM gone)`,
          );
          await connection.run(
            `DELETE FROM ${name} WHERE rowid IN (SELECT replaced_row FROM replaced)`,
          );
          await connection.run(`INSERT INTO ${name} SELECT * FROM delta`);
          await applyRollupChange(connection, name);
          await connection.run('DROP TABLE delta');
          await connection.run('DROP TABLE gone');
          await connection.run('DROP TABLE replaced');
        }
      })
      .catch((error: unknown) => Promise.reject(new PatchApplyError(error)));
    return {
      kind: 'patched',
      version: exported.version,
      rows: exported.rows,
      ms: Math.round(performance.now() - started),
    };
  } finally {
    for (const { file, goneFile } of deltas) {
      rmSync(file, { force: true });
      rmSync(goneFile, { force: true });
    }
  }
}

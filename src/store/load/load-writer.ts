/**
 * The one writer of loads: the seed and the importer both write through it (DESIGN §4.11). In one
 * transaction, with the data version locked, it upserts records by id (upsert-rules.ts), records
 * which records changed (the change log read by the feed and the columnar copies, with the
 * assignments and workers whose columns the report facts copy in `fact_changes`). The row store
 * keeps no copy of the report facts (schema 18: views over the records). A load into empty tables
 * (a seed) skips what cannot apply to new rows and builds the change log (with the billing
 * entities' reads of invoices, audiences.ts) once, at the end, in key order.
 */
import { FEED_TYPE_OF, isFeedTable, READ_INVOICES } from '../sql/change-log.js';
import { FACT_DEPENDENCIES } from '../sql/report-facts.js';
import { DATA_TABLES, TABLES, tableOf, type DataTable } from '../schema.js';
import type { Row } from '../sink.js';
import { createIndexSql } from '../dialect.js';
import { columnNames } from '../table.js';
import {
  canonicalRow,
  classify,
  mergeStored,
  sameValue,
  storedVersionOf,
  upsertsById,
  VERSION_COLUMN,
} from './upsert-rules.js';
import { Departures } from './departures.js';
import type { LoadCounts } from './load-counts.js';
import type { WriteSession } from './write-session.js';
import { isZoned, widenPeriodZones } from '../sql/period-zones.js';

export type { LoadCounts } from './load-counts.js';

/** A row the rules refuse, met while writing (the check pass refuses such files beforehand). */
export class LoadConflictError extends Error {
  constructor(
    readonly table: DataTable,
    readonly id: string,
    readonly problem: string,
  ) {
    super(`${table}: ${problem}`);
  }
}

/** Ids looked up, and statements written, at once. */
const CHUNK = 500;

/** Records remembered as already in this load's change log, at most. */
const RECORDED_KEPT = 200_000;

const placeholders = (n: number) => Array<string>(n).fill('?').join(', ');

export class LoadWriter {
  readonly counts = Object.fromEntries(
    DATA_TABLES.map((t) => [t, { inserted: 0, updated: 0, unchanged: 0, skipped: 0, deleted: 0 }]),
  ) as Record<DataTable, LoadCounts>;
  /** True once anything was written: only then does the load commit a new version. */
  changed = false;
  /** Tables this load found empty when it first wrote them: every row is new. */
  private readonly fresh = new Map<DataTable, boolean>();
  /** Records this load has put in the change log already (type NUL id). */
  private readonly recorded = new Set<string>();
  /** Built whole at the end, because it was empty at the start (see `start`). */
  private deferChangeLog = false;
  /** The load's clock: when its tombstones were made. */
  readonly clock = new Date().toISOString();
  /** Its deletions, and who reads what it changes (departures.ts). */
  readonly departures: Departures;

  /** `version`: the data version this load commits, one above the stored one. */
  constructor(
    private readonly session: WriteSession,
    readonly version: number,
  ) {
    this.departures = new Departures(session, version, this.clock, this.counts);
  }

  /** Secondary indexes dropped for a load into an empty database, created again at the end. */
  private readonly indexesToBuild: string[] = [];

  /** Looks at what is stored before the first write: an empty change log is built at the end. */
  async start(): Promise<void> {
    this.deferChangeLog = await this.isEmpty('record_changes');
    if (await this.isEmpty('workspaces')) {
      // Into an empty database (a seed): indexes built once from the rows, by sorting, cost a
      // fraction of keeping them up row by row at positions all over them.
      for (const table of TABLES.values()) {
        for (const name of Object.keys(table.indexes ?? {}))
          await this.session.run(`DROP INDEX IF EXISTS ${name}`);
        this.indexesToBuild.push(...createIndexSql(table));
      }
    }
    await this.departures.start();
  }

  private async isEmpty(table: string): Promise<boolean> {
    return (await this.session.all(`SELECT 1 AS one FROM ${table} LIMIT 1`)).length === 0;
  }

  /**
   * Writes a batch of rows of one table (every column present, `workspace_id` set); `held`, when
   * given, is what the store holds of their ids (Load.insertRead).
   */
  async write(
    table: DataTable,
    rows: readonly Row[],
    held?: ReadonlyMap<string, Row>,
  ): Promise<void> {
    if (rows.length === 0) return;
    if (!upsertsById(table)) {
      // The seed's own tables (workspaces, configurations, catalog entries): always new.
      await this.insertAll(table, Object.keys(rows[0]), rows);
      return;
    }
    let fresh = this.fresh.get(table);
    if (fresh === undefined)
      this.fresh.set(
        table,
        (fresh = !this.departures.deletionsHeld && (await this.isEmpty(table))),
      );
    for (let start = 0; start < rows.length; start += CHUNK) {
      const chunk = rows.slice(start, start + CHUNK);
      if (fresh) await this.insertNew(table, chunk);
      else await this.upsert(table, chunk, held);
    }
  }

  /** Rows of a table that held nothing when the load began: inserted as they are (a repeated id fails). */
  private async insertNew(table: DataTable, rows: readonly Row[]): Promise<void> {
    await this.insertAll(table, columnNames(tableOf(table)), rows);
    await this.afterWrite(table, rows, []);
  }

  private async insertAll(table: DataTable, columns: string[], rows: readonly Row[]) {
    await this.session.insertRows(
      table,
      columns,
      rows.map((r) => columns.map((c) => r[c] ?? null)),
    );
    this.counts[table].inserted += rows.length;
    this.changed = true;
  }

  private async upsert(
    table: DataTable,
    rows: readonly Row[],
    held?: ReadonlyMap<string, Row>,
  ): Promise<void> {
    const columns = columnNames(tableOf(table));
    const stored = new Map<string, Row>();
    if (held)
      for (const { id } of rows) {
        const row = held.get(String(id));
        if (row) stored.set(String(id), row);
      }
    else
      for (const row of await this.session.all(
        `SELECT ${columns.join(', ')} FROM ${table} WHERE id IN (${placeholders(rows.length)})`,
        rows.map((r) => r.id),
      ))
        stored.set(String(row.id), row as Row);
    const gone = await this.departures.deletedBefore(table, rows, stored);
    const versionColumn = VERSION_COLUMN[table];
    const inserted: Row[] = [];
    const updated: { old: Row; row: Row }[] = [];
    for (const given of rows) {
      const id = String(given.id);
      const old = stored.get(id) ?? null;
      // A column the file left out keeps its stored value (DESIGN §4.11).
      const row = old ? mergeStored(old, given) : given;
      if (!old && gone?.(row)) {
        this.counts[table].skipped++;
        continue;
      }
      if (!old) requireEveryColumn(table, row);
      const outcome = old
        ? classify(
            table,
            {
              id,
              content: canonicalRow(table, row),
              version: versionColumn ? String(row[versionColumn]) : null,
            },
            storedVersionOf(table, old),
            String(given.workspace_id),
          )
        : 'insert';
      if (typeof outcome === 'object') throw new LoadConflictError(table, id, outcome.problem);
      if (outcome === 'unchanged') this.counts[table].unchanged++;
      else if (outcome === 'skip') this.counts[table].skipped++;
      else {
        if (outcome === 'insert') inserted.push(row);
        else updated.push({ old: old as Row, row });
        stored.set(id, row);
      }
    }
    const written = [...inserted, ...updated.map((u) => u.row)];
    if (written.length === 0) return;
    if (table === 'assignments' && !this.deferChangeLog)
      await this.departures.links.touch([...written, ...updated.map((u) => u.old)]);
    // New rows as new (PostgreSQL copies them in), then the updates as upserts by id.
    const values = (rows: readonly Row[]) => rows.map((r) => columns.map((c) => r[c] ?? null));
    await this.session.insertRows(table, columns, values(inserted));
    if (updated.length > 0)
      await this.session.insertRows(table, columns, values(updated.map((u) => u.row)), ['id']);
    this.counts[table].inserted += inserted.length;
    this.counts[table].updated += updated.length;
    this.changed = true;
    await this.afterWrite(table, inserted, updated);
  }

  /** The change log and the period zones of what was just written. */
  private async afterWrite(
    table: DataTable,
    inserted: readonly Row[],
    updated: readonly { old: Row; row: Row }[],
  ): Promise<void> {
    const workspace = String((inserted[0] ?? updated[0].row).workspace_id);
    if (isFeedTable(table)) {
      await this.recordChanges(FEED_TYPE_OF[table], workspace, [
        ...inserted.map((r) => String(r.id)),
        ...updated.map((u) => String(u.row.id)),
      ]);
      if (!this.deferChangeLog)
        await this.departures.noteWritten(FEED_TYPE_OF[table], inserted, updated);
    }
    if (isZoned(table))
      await widenPeriodZones((sql, params) => this.session.run(sql, params), table, [
        ...inserted,
        ...updated.map((u) => u.row),
      ]);
    if ((table === 'assignments' || table === 'workers') && !this.deferChangeLog) {
      // Moved: a column the facts copy changed; the copies rewrite its entries' facts.
      const moved = updated.filter(({ old, row }) =>
        FACT_DEPENDENCIES[table].some((c) => !sameValue(old[c], row[c])),
      );
      if (moved.length > 0)
        await this.session.insertRows(
          'fact_changes',
          ['kind', 'id', 'version'],
          moved.map(({ row }) => [
            table === 'assignments' ? 'assignment' : 'worker',
            row.id,
            this.version,
          ]),
          ['kind', 'id'],
        );
    }
    if (table === 'time_entries' && inserted.length > 0)
      await this.recordChanges('timesheet', workspace, distinct(inserted, 'timesheet_id'));
    if (table === 'invoice_lines' && inserted.length > 0) {
      await this.recordChanges('invoice', workspace, distinct(inserted, 'invoice_id'));
      if (!this.deferChangeLog) await this.departures.noteLines(inserted);
    }
  }

  /** These records changed at this load's version (DESIGN §4.11). */
  private async recordChanges(type: string, workspace: string, ids: readonly string[]) {
    if (this.deferChangeLog) return;
    // A timesheet gains entries batch after batch: it is recorded once per load, not per batch.
    const fresh = ids.filter((id) => !this.recorded.has(`${type}\u0000${id}`));
    if (fresh.length === 0) return;
    // Bounded: forgetting only costs recording a record again, which changes nothing.
    if (this.recorded.size > RECORDED_KEPT) this.recorded.clear();
    for (const id of fresh) this.recorded.add(`${type}\u0000${id}`);
    await this.session.insertRows(
      'record_changes',
      ['type', 'id', 'workspace_id', 'version'],
      fresh.map((id) => [type, id, workspace, this.version]),
      ['type', 'id'],
    );
  }

  /** The change log is built whole at the end (it was empty when the load began). */
  get changeLogDeferred(): boolean {
    return this.deferChangeLog;
  }

  /** Rows of a table written by other means (load/staging.ts: new rows in one statement). */
  noteInserted(table: DataTable, rows: number): void {
    this.counts[table].inserted += rows;
    if (rows > 0) this.changed = true;
  }

  /** What was left to the end: the change log when it was empty at the start, the indexes. */
  async finishWrites(): Promise<void> {
    if (await this.departures.finish(!this.deferChangeLog)) this.changed = true;
    if (!this.changed) {
      for (const sql of this.indexesToBuild) await this.session.run(sql);
      return;
    }
    if (this.deferChangeLog) {
      await this.session.run('DELETE FROM record_changes');
      for (const [table, type] of Object.entries(FEED_TYPE_OF))
        await this.session.run(
          `INSERT INTO record_changes (type, id, workspace_id, version) SELECT ?, id, workspace_id, ? FROM ${table} ORDER BY id`,
          [type, this.version],
        );
      await this.session.run(READ_INVOICES);
    }
    for (const sql of this.indexesToBuild) await this.session.run(sql);
  }
}

/** Each table's required columns (NOT NULL). */
const REQUIRED = new Map<DataTable, readonly string[]>();

/** A new record carries every required column (the check pass refuses such files beforehand). */
function requireEveryColumn(table: DataTable, row: Row): void {
  let required = REQUIRED.get(table);
  if (!required) {
    const columns = Object.entries(tableOf(table).columns);
    REQUIRED.set(
      table,
      (required = columns.filter(([, type]) => type.endsWith('!')).map(([name]) => name)),
    );
  }
  for (const name of required) {
    if (row[name] !== undefined) continue;
    const absent = required.filter((column) => row[column] === undefined);
    throw new LoadConflictError(
      table,
      String(row.id),
      `id ${JSON.stringify(row.id)} is new, but its row leaves out ${absent.join(', ')}`,
    );
  }
}

function distinct(rows: readonly Row[], column: string): string[] {
  return [...new Set(rows.map((r) => r[column]).filter((v) => v !== null && v !== undefined))].map(
    String,
  );
}

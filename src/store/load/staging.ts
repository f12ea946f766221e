/**
 * An import staged in the load's transaction (PostgreSQL; docs/operations.md "Staged on
 * PostgreSQL"): each table's checked rows go by `COPY` into a temporary staging table, one row per
 * line of its file with the file's values as text; the checks across rows are then asked of the
 * staging tables as sets (the stored rows of the load's ids by one join, the references no record
 * answers by anti-joins), and once all pass, the rows are written: those whose id is stored
 * through the load writer (its upsert rules), a page at a time in line order; the new ones by
 * one `INSERT … SELECT` with their change log and period zones, where no deletion or audience
 * needs each row on its own (`plainInserts`). The staging tables go with the transaction.
 */
import { FEED_TYPE_OF, isFeedTable } from '../sql/change-log.js';
import { isZoned, widenZonesOf } from '../sql/period-zones.js';
import { tableOf, type DataTable } from '../schema.js';
import type { Row } from '../sink.js';
import { baseType, columnNames } from '../table.js';
import type { LoadWriter } from './load-writer.js';
import type { WriteSession } from './write-session.js';

/** A checked row of a file: its line, its values (only the columns the file carries). */
export interface StagedRow {
  line: number;
  row: Row;
}

/** Rows read back from a staging table, with the stored rows of their ids. */
export interface StagedPage {
  rows: StagedRow[];
  /** The stored rows (any workspace) of the page's ids, by id. */
  stored: Map<string, Row>;
}

/** Rows fetched from a staging table at once. */
const PAGE = 5_000;

/** Tables whose new rows need each row on its own (audiences, supplier links): never plain. */
const EACH_ROW: ReadonlySet<DataTable> = new Set(['assignments', 'invoices', 'invoice_lines']);

const stagingOf = (table: DataTable) => `import_stage_${table}`;

/** A table's columns, and which hold numbers (integer or bigint), once per table. */
const COLUMNS = new Map<DataTable, readonly { name: string; numeric: boolean }[]>();

function columnsOf(table: DataTable): readonly { name: string; numeric: boolean }[] {
  let columns = COLUMNS.get(table);
  if (!columns)
    COLUMNS.set(
      table,
      (columns = Object.entries(tableOf(table).columns).map(([name, type]) => ({
        name,
        numeric: baseType(type) !== 'text',
      }))),
    );
  return columns;
}

/** `missing`: the table's columns a row does not carry, as one text (null: it carries all). */
function missingOf(columns: readonly string[], row: Row): string | null {
  let missing: string[] | null = null;
  for (const column of columns) if (!Object.hasOwn(row, column)) (missing ??= []).push(column);
  return missing === null ? null : missing.join(',');
}

export class Staging {
  private readonly staged = new Set<DataTable>();
  /** Per table, how many staged rows the checks found stored: none, and writing needs no join. */
  private readonly storedCounts = new Map<DataTable, number>();
  /** The COPY under way, awaited before the next one: reading overlaps the server's work. */
  private copying: Promise<void> = Promise.resolve();
  private cursors = 0;

  constructor(
    private readonly session: WriteSession,
    private readonly writer: LoadWriter,
  ) {}

  /** Adds checked rows of a table to its staging table. */
  async stage(table: DataTable, rows: readonly StagedRow[]): Promise<void> {
    const columns = columnNames(tableOf(table));
    if (!this.staged.has(table)) {
      await this.copying;
      const body = ['line integer', 'missing text', ...columns.map((c) => `${c} text`)];
      for (const sql of this.session.dialect.scratchTable(stagingOf(table), `(${body.join(', ')})`))
        await this.session.run(sql);
      this.staged.add(table);
    }
    const values = rows.map(({ line, row }) => [
      line,
      missingOf(columns, row),
      ...columns.map((c) => withoutNul(row[c])),
    ]);
    await this.copying;
    this.copying = this.session.insertRows(
      stagingOf(table),
      ['line', 'missing', ...columns],
      values,
    );
  }

  /** Every row staged: the staging tables' statistics taken for the checks' plans. */
  async stagedAll(): Promise<void> {
    await this.copying;
    for (const table of this.staged) await this.session.run(`ANALYZE ${stagingOf(table)}`);
  }

  /**
   * The staged rows of a table whose id is stored (any workspace), with the stored rows, in line
   * order; with `all`, every staged row of the table (a stored row when there is one).
   */
  async *storedPages(table: DataTable, all = false): AsyncGenerator<StagedPage> {
    if (!this.staged.has(table)) return;
    const columns = columnNames(tableOf(table));
    const name = `import_rows_${++this.cursors}`;
    const join = all ? 'LEFT JOIN' : 'JOIN';
    await this.session.run(
      `DECLARE ${name} NO SCROLL CURSOR FOR SELECT s.line AS staged_line, s.missing AS staged_missing, ` +
        `${columns.map((c) => `s.${c} AS staged_${c}`).join(', ')}, ` +
        `${columns.map((c) => `t.${c}`).join(', ')} FROM ${stagingOf(table)} s ` +
        `${join} ${table} t ON t.id = s.id ORDER BY s.line`,
    );
    let count = 0;
    try {
      for (;;) {
        const fetched = await this.session.all(`FETCH ${PAGE} FROM ${name}`);
        if (fetched.length === 0) {
          if (!all) this.storedCounts.set(table, count);
          return;
        }
        count += fetched.length;
        const page: StagedPage = { rows: [], stored: new Map() };
        for (const r of fetched) {
          page.rows.push({ line: Number(r.staged_line), row: this.rowOf(table, r as Row) });
          if (r.id !== null && r.id !== undefined) {
            const stored: Row = {};
            for (const c of columns) stored[c] = r[c] as Row[string];
            page.stored.set(String(r.id), stored);
          }
        }
        yield page;
      }
    } finally {
      await this.session.run(`CLOSE ${name}`);
    }
  }

  /** A staged row as the importer checked it: the columns its file carries, numbers as numbers. */
  private rowOf(table: DataTable, fetched: Row): Row {
    const missing =
      fetched.staged_missing === null ? null : String(fetched.staged_missing).split(',');
    const row: Row = {};
    for (const { name, numeric } of columnsOf(table)) {
      if (missing?.includes(name)) continue;
      const value = fetched[`staged_${name}`];
      row[name] = value === null || !numeric ? value : Number(value);
    }
    return row;
  }

  /** Staged rows of a table whose id is not stored and that leave columns out, in line order. */
  async newLeavingOut(table: DataTable): Promise<{ line: number; missing: string[] }[]> {
    if (!this.staged.has(table)) return [];
    const rows = await this.session.all(
      `SELECT s.line, s.missing FROM ${stagingOf(table)} s WHERE s.missing IS NOT NULL` +
        ` AND s.id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.id = s.id)` +
        ' ORDER BY s.line',
    );
    return rows.map((r) => ({ line: Number(r.line), missing: String(r.missing).split(',') }));
  }

  /**
   * Staged rows of `table` whose `column` names an id neither staged for `target` nor stored
   * there in the workspace (the anti-joins), in line order.
   */
  async missingReferences(
    table: DataTable,
    column: string,
    target: DataTable,
    workspaceId: string,
  ): Promise<{ line: number; id: string }[]> {
    if (!this.staged.has(table)) return [];
    const inFiles = this.staged.has(target)
      ? ` AND NOT EXISTS (SELECT 1 FROM ${stagingOf(target)} f WHERE f.id = s.${column})`
      : '';
    const rows = await this.session.all(
      `SELECT s.line, s.${column} AS id FROM ${stagingOf(table)} s WHERE s.${column} IS NOT NULL${inFiles}` +
        ` AND NOT EXISTS (SELECT 1 FROM ${target} t WHERE t.id = s.${column} AND t.workspace_id = ?)` +
        ' ORDER BY s.line',
      [workspaceId],
    );
    return rows.map((r) => ({ line: Number(r.line), id: String(r.id) }));
  }

  /**
   * Writes a table's staged rows, every check having passed: those whose id is stored through
   * the load writer, then the new ones in one statement where `plainInserts` allows, else every
   * row through the writer.
   */
  async write(table: DataTable): Promise<void> {
    if (!this.staged.has(table)) return;
    const plain = this.plainInserts(table);
    const stored =
      plain && this.storedCounts.get(table) === 0 ? [] : this.storedPages(table, !plain);
    for await (const page of stored)
      await this.writer.write(
        table,
        page.rows.map((r) => r.row),
        page.stored,
      );
    if (plain) await this.insertNew(table);
  }

  /**
   * New rows need nothing but their own change log and zones: no deletion is remembered (that a
   * new id may come back from, or whose parent may be gone) and the table has no audience or
   * supplier link that follows each row.
   */
  private plainInserts(table: DataTable): boolean {
    return !this.writer.departures.deletionsHeld && !EACH_ROW.has(table);
  }

  /** The staged rows whose id is not stored, with their change log and period zones. */
  private async insertNew(table: DataTable): Promise<void> {
    const declared = tableOf(table);
    const columns = columnNames(declared);
    const cast = (c: string) => {
      const type = baseType(declared.columns[c]);
      return type === 'text' ? `s.${c}` : `CAST(s.${c} AS ${type.toUpperCase()})`;
    };
    const changes: string[] = [];
    const logged = !this.writer.changeLogDeferred;
    const log = (type: string, ids: string) =>
      `INSERT INTO record_changes (type, id, workspace_id, version) SELECT DISTINCT '${type}', ${ids}` +
      ` ON CONFLICT (type, id) DO UPDATE SET workspace_id = excluded.workspace_id, version = excluded.version` +
      // A record this load logged already (a timesheet, then its entries) is left as it is.
      ` WHERE record_changes.version <> excluded.version OR record_changes.workspace_id <> excluded.workspace_id`;
    const version = String(this.writer.version);
    if (logged && isFeedTable(table))
      changes.push(log(FEED_TYPE_OF[table], `id, workspace_id, ${version} FROM written`));
    if (logged && table === 'time_entries')
      changes.push(log('timesheet', `timesheet_id, workspace_id, ${version} FROM written`));
    if (isZoned(table))
      changes.push(
        widenZonesOf(
          table,
          'SELECT workspace_id, created_at, period_start, period_end FROM written',
        ),
      );
    const returned = ['id', 'workspace_id'];
    if (table === 'time_entries') returned.push('timesheet_id');
    if (isZoned(table)) returned.push('created_at', 'period_start', 'period_end');
    const [counted] = await this.session.all(
      `WITH written AS (INSERT INTO ${table} (${columns.join(', ')})` +
        ` SELECT ${columns.map(cast).join(', ')} FROM ${stagingOf(table)} s` +
        ` WHERE NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.id = s.id)` +
        ` RETURNING ${returned.join(', ')})` +
        changes.map((sql, i) => `, change_${i} AS (${sql})`).join('') +
        ' SELECT COUNT(*) AS n FROM written',
    );
    this.writer.noteInserted(table, Number(counted.n));
  }
}

/** PostgreSQL text holds no U+0000: a staged value (of a row refused anyway) loses it. */
function withoutNul(value: unknown): unknown {
  return typeof value === 'string' && value.includes('\u0000')
    ? value.replaceAll('\u0000', '\uFFFD')
    : value;
}

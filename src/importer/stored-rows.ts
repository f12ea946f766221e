/**
 * Rows whose id the store already holds, judged as the load will judge them (the upsert rules
 * of src/store/load/upsert-rules.ts, on the stored row with the file's columns laid over it): an
 * update, the same row, an older version, or a problem (another workspace's id, a changed time
 * entry or invoice line, a changed record under the stored `updated_at`); and rows it does not
 * hold that leave out a required column. Asked of the store a chunk of ids at a time.
 */
import {
  canonicalRow,
  classify,
  mergeStored,
  storedVersionOf,
  VERSION_COLUMN,
} from '../store/load/upsert-rules.js';
import type { Row } from '../store/sink.js';
import { TABLES } from '../store/schema.js';
import type { AdminWrites } from '../store/store.js';
import { columnNames, type Table } from '../store/table.js';
import type { ImportTable } from './import-tables.js';
import type { ProblemSink } from './import-problems.js';

/** Ids asked of the store at once. */
const CHUNK = 500;

export interface CheckedRow {
  file: string;
  line: number;
  /** The columns the file carries (row-rules.ts). */
  row: Row;
  /** Required columns the file does not carry: only an update may leave them out. */
  absent: readonly string[];
}

/** A row that leaves out required columns but updates no stored record. */
export function newRecordProblem(absent: readonly string[]): string {
  return `missing column${absent.length > 1 ? 's' : ''} ${absent.join(', ')}: a new record needs every required column (only an update of a stored record may leave columns out)`;
}

/**
 * Judges the rows, and returns the stored rows it read by id (what the load's upserts start
 * from). `released` gathers the codes suppliers held that their rows here change (key-index.ts).
 */
export async function judgeStoredRows(
  store: Pick<AdminWrites, 'storedRows'>,
  table: ImportTable,
  workspaceId: string,
  rows: readonly CheckedRow[],
  problems: ProblemSink,
  released?: Map<string, string>,
): Promise<Map<string, Row>> {
  const read = new Map<string, Row>();
  const columns = columnNames(TABLES.get(table) as Table);
  const keyed = rows.filter(({ row }) => typeof row.id === 'string');
  for (let start = 0; start < keyed.length; start += CHUNK) {
    const chunk = keyed.slice(start, start + CHUNK);
    const ids = chunk.map(({ row }) => String(row.id));
    const stored = new Map(
      (await store.storedRows(table, 'id', ids, columns, null)).map((r) => [
        String(r.id),
        r as Row,
      ]),
    );
    for (const [id, held] of stored) read.set(id, held);
    judgeHeld(table, workspaceId, chunk, stored, problems, released);
  }
  return read;
}

/**
 * Judges rows against `stored`, the stored rows (any workspace) of their ids by id: a row whose
 * id is not there is new, and a problem if it leaves required columns out.
 */
export function judgeHeld(
  table: ImportTable,
  workspaceId: string,
  rows: readonly CheckedRow[],
  stored: ReadonlyMap<string, Row>,
  problems: ProblemSink,
  released?: Map<string, string>,
): void {
  const version = VERSION_COLUMN[table];
  for (const { file, line, row, absent } of rows) {
    if (typeof row.id !== 'string') continue;
    const held = stored.get(row.id);
    if (held && released && held.workspace_id === workspaceId && typeof held.code === 'string')
      if (typeof row.code === 'string' && row.code !== held.code)
        released.set(held.code, String(held.id));
    if (!held) {
      if (absent.length > 0) problems.push({ file, line, message: newRecordProblem(absent) });
      continue;
    }
    const merged = mergeStored(held, row);
    const outcome = classify(
      table,
      {
        id: row.id,
        content: canonicalRow(table, merged),
        version: version ? String(merged[version]) : null,
      },
      storedVersionOf(table, held),
      workspaceId,
    );
    if (typeof outcome === 'object') problems.push({ file, line, message: outcome.problem });
  }
}

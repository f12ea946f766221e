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
import type { AdminWrites, IdRange } from '../store/store.js';
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

/** Text compared alike by JavaScript and the databases (byte order): ASCII. */
const ASCII = /^[\x20-\x7e]*$/;

/**
 * Whether a table whose ids lie in `range` (undefined: not known) may hold an id, as a test of
 * the id. Judged ids passed the id rule (PLAIN_ID: ASCII), so comparing them as JavaScript does
 * is comparing them as the databases do, when the bounds are ASCII too.
 */
function storedTest(range: IdRange | null | undefined): (id: string) => boolean {
  if (range === undefined) return () => true;
  if (range === null) return () => false;
  const { least, greatest } = range;
  if (!ASCII.test(least) || !ASCII.test(greatest)) return () => true;
  return (id) => id >= least && id <= greatest;
}

/**
 * Judges the rows, and returns the stored rows it read by id (what the load's upserts start
 * from). `released` gathers the codes suppliers held that their rows here change (key-index.ts).
 * `range`, when known, is the least and greatest id the table held (null: none): the store is
 * not asked about ids outside it (a load of new records whose ids grow, the common case, asks
 * nothing).
 */
export async function judgeStoredRows(
  store: Pick<AdminWrites, 'storedRows'>,
  table: ImportTable,
  workspaceId: string,
  rows: readonly CheckedRow[],
  problems: ProblemSink,
  released?: Map<string, string>,
  range?: IdRange | null,
): Promise<Map<string, Row>> {
  const read = new Map<string, Row>();
  const columns = columnNames(TABLES.get(table) as Table);
  const keyed = rows.filter(({ row }) => typeof row.id === 'string');
  const mayBeStored = storedTest(range);
  const asked = keyed.filter(({ row }) => mayBeStored(row.id as string));
  for (let start = 0; start < asked.length; start += CHUNK) {
    const ids = asked.slice(start, start + CHUNK).map(({ row }) => String(row.id));
    for (const stored of await store.storedRows(table, 'id', ids, columns, null))
      read.set(String(stored.id), stored as Row);
  }
  judgeHeld(table, workspaceId, keyed, read, problems, released);
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

/**
 * Rows whose id the store already holds, judged as the load will judge them (the upsert rules
 * of src/store/load/upsert-rules.ts): an update, the same row, an older version, or a problem
 * (another workspace's id, a changed time entry or invoice line, a changed record under the
 * stored `updated_at`). Asked of the store a chunk of ids at a time, as rows arrive.
 */
import {
  canonicalRow,
  classify,
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
  row: Row;
}

export async function judgeStoredRows(
  store: Pick<AdminWrites, 'storedRows'>,
  table: ImportTable,
  workspaceId: string,
  rows: readonly CheckedRow[],
  problems: ProblemSink,
): Promise<void> {
  const columns = columnNames(TABLES.get(table) as Table);
  const version = VERSION_COLUMN[table];
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
    if (stored.size === 0) continue;
    for (const { file, line, row } of chunk) {
      const held = stored.get(String(row.id));
      if (!held) continue;
      const outcome = classify(
        table,
        {
          id: String(row.id),
          content: canonicalRow(table, row),
          version: version ? String(row[version]) : null,
        },
        storedVersionOf(table, held),
        workspaceId,
      );
      if (typeof outcome === 'object') problems.push({ file, line, message: outcome.problem });
    }
  }
}

/** Asks the store which of the ids and codes an import names already exist (key-checks.ts). */
import type { SqlStore } from '../store/sql-store.js';
import type { ImportTable } from './import-tables.js';
import type { KeyLookups, StoredKeys } from './key-checks.js';

/** Placeholders per statement: well under SQLite's and PostgreSQL's limits. */
const CHUNK = 500;

async function existing(
  sql: Pick<SqlStore, 'all'>,
  select: string,
  fixed: readonly unknown[],
  values: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  for (let start = 0; start < values.length; start += CHUNK) {
    const chunk = values.slice(start, start + CHUNK);
    const rows = await sql.all(`${select} IN (${chunk.map(() => '?').join(', ')})`, [
      ...fixed,
      ...chunk,
    ]);
    for (const row of rows) found.add(String(Object.values(row)[0]));
  }
  return found;
}

export async function findStoredKeys(
  sql: Pick<SqlStore, 'all'>,
  workspaceId: string,
  lookups: KeyLookups,
): Promise<StoredKeys> {
  const takenIds = new Map<ImportTable, Set<string>>();
  for (const [table, ids] of lookups.ids)
    takenIds.set(table, await existing(sql, `SELECT id FROM ${table} WHERE id`, [], ids));
  const workspaceIds = new Map<ImportTable, Set<string>>();
  for (const [table, ids] of lookups.references) {
    const select = `SELECT id FROM ${table} WHERE workspace_id = ? AND id`;
    workspaceIds.set(table, await existing(sql, select, [workspaceId], ids));
  }
  const supplierCodes = await existing(
    sql,
    'SELECT code FROM suppliers WHERE workspace_id = ? AND code',
    [workspaceId],
    lookups.supplierCodes,
  );
  return { takenIds, workspaceIds, supplierCodes };
}

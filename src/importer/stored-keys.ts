/** Asks the store which of the ids and codes an import names already exist (key-checks.ts). */
import type { AdminWrites } from '../store/store.js';
import type { ImportTable } from './import-tables.js';
import type { KeyLookups, StoredKeys } from './key-checks.js';

export async function findStoredKeys(
  store: Pick<AdminWrites, 'existingKeys'>,
  workspaceId: string,
  lookups: KeyLookups,
): Promise<StoredKeys> {
  const takenIds = new Map<ImportTable, Set<string>>();
  for (const [table, ids] of lookups.ids)
    takenIds.set(table, await store.existingKeys(table, 'id', null, ids));
  const workspaceIds = new Map<ImportTable, Set<string>>();
  for (const [table, ids] of lookups.references)
    workspaceIds.set(table, await store.existingKeys(table, 'id', workspaceId, ids));
  const supplierCodes = await store.existingKeys(
    'suppliers',
    'code',
    workspaceId,
    lookups.supplierCodes,
  );
  return { takenIds, workspaceIds, supplierCodes };
}

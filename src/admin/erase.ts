import { ERASED_FIELDS } from '../store/sql/erasure.js';
import type { AdminWrites } from '../store/store.js';
import { AdminError } from './admin-error.js';
import { requireWorkspace } from './workspaces.js';

/** What `vms-read erase` prints. */
export interface ErasureSummary {
  workspace: string;
  worker: string;
  /** The fields replaced, as the API names them. */
  erased: readonly string[];
  /** False when the worker was erased already (the database files are scrubbed again anyway). */
  changed: boolean;
  /** The data version after the erasure. */
  dataVersion: number;
}

/**
 * A worker's right to be forgotten (DESIGN §4.13): its name and email replaced in the store, as
 * a new data version, and the old text scrubbed out of the database files.
 */
export async function eraseWorker(
  store: AdminWrites,
  workspaceId: string,
  workerId: string,
  now = new Date(),
): Promise<ErasureSummary> {
  await requireWorkspace(store, workspaceId);
  const outcome = await store.eraseWorker(workspaceId, workerId, now.toISOString());
  if (!outcome.found)
    throw new AdminError(`unknown worker: ${workerId} in workspace ${workspaceId}`);
  return {
    workspace: workspaceId,
    worker: workerId,
    erased: ERASED_FIELDS,
    changed: outcome.changed,
    dataVersion: outcome.version,
  };
}

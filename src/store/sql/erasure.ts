/**
 * Erasure of a worker's personal data (DESIGN §4.13, a person's right to be forgotten): the
 * worker's `display_name` becomes the fixed text `(erased)` and `work_email` null, as a new data
 * version in one write transaction (the change feed shows the worker changed; its `updated_at`
 * moves to the erasure's moment, so a replayed older row of it is skipped). Financial records,
 * report facts and columnar copies are left as they are: none holds a worker's name or email
 * (the columns they copy are listed in duckdb/columnar-tables.ts). Beyond the worker's row, in
 * the same transaction: webhook deliveries waiting to be sent that name the worker are dropped, to
 * be built again erased, and the built-in authorization server's records that hold its name or
 * email go. (The webhook attempt log keeps no receiver's text: webhook-delivery-tables.ts.)
 * Getting the old text out of the database files is each store's own step, after the commit
 * (`scrubErased`), over `TABLES_HOLDING_NAMES`.
 */
import { SET_DATA_VERSION } from '../load/load.js';
import type { WriteSession } from '../load/write-session.js';
import { DROP_RECORDS_NAMING } from './oauth-records.js';
import { DROP_PENDING_NAMING } from './webhook-progress.js';

/** What a worker's name reads after erasure. */
export const ERASED_NAME = '(erased)';

/** The worker fields erasure replaces, as the API names them. */
export const ERASED_FIELDS = ['displayName', 'workEmail'] as const;

/**
 * The tables that can hold a worker's name or email, which a store scrubs after an erasure: the
 * worker's row, webhook bodies waiting to be sent, the webhook attempt log (which held receivers'
 * answers before schema version 10), and the authorization server's records.
 */
export const TABLES_HOLDING_NAMES = [
  'workers',
  'webhook_progress',
  'webhook_attempts',
  'oauth_records',
] as const;

/** A `LIKE … ESCAPE '\'` pattern matching any text that holds `text` as a JSON string. */
export function holdingJson(text: string): string {
  return `%${JSON.stringify(text).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export type ErasureOutcome =
  | { found: false }
  /** `changed` false: the worker was erased already; the version stays. */
  | { found: true; changed: boolean; version: number };

export async function eraseWorkerRow(
  session: WriteSession,
  current: number,
  workspaceId: string,
  workerId: string,
  at: string,
): Promise<ErasureOutcome> {
  const [worker] = await session.all(
    'SELECT display_name, work_email, updated_at FROM workers WHERE id = ? AND workspace_id = ?',
    [workerId, workspaceId],
  );
  if (!worker) return { found: false };
  if (worker.display_name === ERASED_NAME && worker.work_email === null)
    return { found: true, changed: false, version: current };
  const version = current + 1;
  const updatedAt = String(worker.updated_at) > at ? String(worker.updated_at) : at;
  await session.run(
    'UPDATE workers SET display_name = ?, work_email = NULL, updated_at = ? WHERE id = ?',
    [ERASED_NAME, updatedAt, workerId],
  );
  await session.insertRows(
    'record_changes',
    ['type', 'id', 'workspace_id', 'version'],
    [['worker', workerId, workspaceId, version]],
    ['type', 'id'],
  );
  await session.run(SET_DATA_VERSION, [String(version)]);
  await session.run(DROP_PENDING_NAMING, [holdingJson(workerId)]);
  for (const text of [worker.display_name, worker.work_email])
    if (typeof text === 'string' && text !== '')
      await session.run(DROP_RECORDS_NAMING, [holdingJson(text)]);
  return { found: true, changed: true, version };
}

import { randomUUID } from 'node:crypto';
import type { SAVED_QUERY_KINDS } from '../records/resources.js';
import type { SavedDefinition } from '../semantic/query-schema.js';
import type { Store } from '../store/store.js';
import { requireWorkspace } from './workspaces.js';

export interface NewSavedQuery {
  workspaceId: string;
  kind: (typeof SAVED_QUERY_KINDS)[number];
  name: string;
  /** Checked by checkSavedDefinition (semantic/saved-definition.ts). */
  definition: SavedDefinition;
  /** Only with kind dashboard_tile. */
  dashboardId: string | null;
  author: string;
}

/** Stores a saved query, pinned now; returns its new id. */
export async function createSavedQuery(
  store: Store,
  query: NewSavedQuery,
  now: Date,
): Promise<string> {
  await requireWorkspace(store, query.workspaceId);
  const id = `sq_${randomUUID()}`;
  const at = now.toISOString();
  await store.insertSavedQuery({
    id,
    workspace_id: query.workspaceId,
    kind: query.kind,
    name: query.name,
    dashboard_id: query.dashboardId,
    definition: JSON.stringify(query.definition),
    author: query.author,
    pinned_at: at,
    created_at: at,
  });
  return id;
}

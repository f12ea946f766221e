import type { VmsReadClient } from '../session/api.js';
import { isProvenance, type Provenance } from '../dom.js';

export interface SavedQuery {
  id: string;
  kind: 'library' | 'dashboard_tile' | 'briefing';
  name: Provenance;
  dashboardId: string | null;
}

/** Every saved query of the workspace, page after page. */
export async function savedQueries(client: VmsReadClient): Promise<SavedQuery[]> {
  const all: SavedQuery[] = [];
  for await (const item of client.items('list_saved_queries', { limit: 50 }))
    if (isProvenance(item.name)) all.push(item as SavedQuery);
  return all;
}

/** Dashboard tiles grouped by dashboardId, in the order the ids sort. */
export function dashboardsOf(queries: SavedQuery[]): Map<string, SavedQuery[]> {
  const dashboards = new Map<string, SavedQuery[]>();
  for (const q of queries) {
    if (q.kind !== 'dashboard_tile' || !q.dashboardId) continue;
    dashboards.set(q.dashboardId, [...(dashboards.get(q.dashboardId) ?? []), q]);
  }
  return new Map([...dashboards].sort(([a], [b]) => a.localeCompare(b)));
}

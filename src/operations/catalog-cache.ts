import type { ReportFacts, Workspace } from '../store/store.js';
import { resolveCatalog, type Catalog } from '../semantic/catalog.js';

/**
 * Resolved catalogs per workspace, rebuilt when the store's cheap stamp changes (a new
 * configuration version or a catalog-table edit), so a CLI change applies on the next request.
 */
export class CatalogCache {
  private readonly cached = new Map<
    string,
    { stamp: string; catalog: Catalog; payCodes: { code: string; band: string }[] }
  >();

  async get(store: ReportFacts, workspace: Workspace) {
    const stamp = await store.catalogStamp(workspace.id);
    const hit = this.cached.get(workspace.id);
    if (hit && hit.stamp === stamp) return hit;
    const config = await store.latestConfig(workspace.id);
    const tableEntries =
      workspace.catalogSource === 'semantic_catalog_table'
        ? await store.catalogEntries(workspace.id)
        : [];
    const entry = {
      stamp,
      catalog: resolveCatalog({
        workspaceSource: workspace.catalogSource,
        configVersion: config?.version ?? 0,
        enabledMetrics: config?.config.enabledMetrics ?? null,
        tableEntries,
      }),
      payCodes: (config?.config.payCodes ?? []).map((p) => ({ code: p.code, band: p.band })),
    };
    this.cached.set(workspace.id, entry);
    return entry;
  }
}

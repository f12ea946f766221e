import { resolveCatalog } from '../semantic/catalog.js';
import type { Store } from '../store/store.js';
import { AdminError } from './admin-error.js';

export interface MetricToggle {
  workspace: string;
  configVersion: number;
  metric: string;
  enabled: boolean;
}

/**
 * Writes the next version of the workspace's program configuration with the metric added to or
 * removed from its enabled set, so catalogVersion changes each time.
 */
export async function setMetricEnabled(
  store: Store,
  workspaceId: string,
  metric: string,
  enable: boolean,
  now: Date,
): Promise<MetricToggle> {
  const workspace = await store.getWorkspace(workspaceId);
  if (!workspace) throw new AdminError(`unknown workspace: ${workspaceId}`);
  const latest = await store.latestConfig(workspaceId);
  if (!latest) throw new AdminError(`workspace ${workspaceId} has no program configuration`);
  const tableEntries =
    workspace.catalogSource === 'semantic_catalog_table'
      ? await store.catalogEntries(workspaceId)
      : [];
  // Every metric the source offers, whatever is enabled now: the set the program config narrows.
  const available = resolveCatalog({
    workspaceSource: workspace.catalogSource,
    configVersion: latest.version,
    enabledMetrics: null,
    tableEntries,
  });
  if (!available.metrics.has(metric))
    throw new AdminError(`metric ${metric} is not in this workspace's catalog source`);
  const current = latest.config.enabledMetrics ?? [...available.metrics.keys()];
  const next = enable
    ? [...new Set([...current, metric])]
    : current.filter((key) => key !== metric);
  const version = latest.version + 1;
  await store.insertConfig(
    workspaceId,
    version,
    { ...latest.config, enabledMetrics: next.sort() },
    now.toISOString(),
  );
  return { workspace: workspaceId, configVersion: version, metric, enabled: enable };
}

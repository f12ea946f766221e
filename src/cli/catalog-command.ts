import { resolveCatalog } from '../semantic/catalog.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { dbOf, parse, requiredId, UsageError } from './args.js';

/**
 * `catalog enable|disable`: writes the next version of the workspace's program configuration
 * with the metric added to or removed from its enabled set, so catalogVersion changes each time.
 */
export async function catalogCommand(argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  if (action !== 'enable' && action !== 'disable')
    throw new UsageError(
      'usage: vms-read catalog enable|disable --db D --workspace W --metric KEY',
    );
  const { values } = parse(rest, {
    db: { type: 'string' },
    workspace: { type: 'string' },
    metric: { type: 'string' },
  });
  const metric = requiredId(values.metric, '--metric');
  const workspaceId = requiredId(values.workspace, '--workspace');
  const store = await openStore(dbOf(values.db));
  try {
    const result = await setMetricEnabled(
      store,
      workspaceId,
      metric,
      action === 'enable',
      new Date(),
    );
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await store.close();
  }
}

export async function setMetricEnabled(
  store: Store,
  workspaceId: string,
  metric: string,
  enable: boolean,
  now: Date,
) {
  const workspace = await store.getWorkspace(workspaceId);
  if (!workspace) throw new UsageError(`unknown workspace: ${workspaceId}`);
  const latest = await store.latestConfig(workspaceId);
  if (!latest) throw new UsageError(`workspace ${workspaceId} has no program configuration`);
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
    throw new UsageError(`metric ${metric} is not in this workspace's catalog source`);
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

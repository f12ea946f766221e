import { setMetricEnabled } from '../admin/catalog.js';
import type { Config } from '../config.js';
import { openDb, parse, requiredId, UsageError } from './args.js';

/** `catalog enable|disable`: prints the new configuration version (admin/catalog.ts). */
export async function catalogCommand(argv: string[], config: Config): Promise<void> {
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
  const store = await openDb(values.db, config);
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

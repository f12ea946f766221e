import { setMetricEnabled } from '../admin/catalog.js';
import { DB_FLAG, openDb, requiredId } from './args.js';
import { defineCommand, type Command } from './command.js';
import { SUMMARIES } from './summaries.js';

/**
 * `catalog enable|disable`: writes a new version of the workspace's program configuration with
 * the metric added or removed and prints it (admin/catalog.ts).
 */
function catalogCommand(action: 'enable' | 'disable'): Command {
  return defineCommand({
    name: `catalog ${action}`,
    synopsis: '--db D --workspace W --metric KEY',
    summary: SUMMARIES[`catalog ${action}`],
    description:
      `Writes a new version of workspace W's program configuration with metric KEY\n` +
      `${action === 'enable' ? 'added' : 'removed'} (configVersion + 1, so catalogVersion changes) and prints it as JSON.`,
    flags: {
      db: DB_FLAG,
      workspace: { type: 'string', value: 'W', help: 'the workspace id' },
      metric: { type: 'string', value: 'KEY', help: "the metric's key, e.g. spend" },
    },
    async run({ values }, config) {
      const metric = requiredId(values.metric, '--metric');
      const workspaceId = requiredId(values.workspace, '--workspace');
      const store = await openDb(values.db, config);
      try {
        const enabled = action === 'enable';
        const result = await setMetricEnabled(store, workspaceId, metric, enabled, new Date());
        process.stdout.write(`${JSON.stringify(result)}\n`);
      } finally {
        await store.close();
      }
    },
  });
}

export const catalogEnableCommand = catalogCommand('enable');
export const catalogDisableCommand = catalogCommand('disable');

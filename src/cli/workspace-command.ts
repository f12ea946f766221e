import { listWorkspaces } from '../admin/workspaces.js';
import { DB_FLAG, openDb } from './args.js';
import { defineCommand } from './command.js';
import { SUMMARIES } from './summaries.js';

export const workspaceListCommand = defineCommand({
  name: 'workspace list',
  synopsis: '--db D [--json]',
  summary: SUMMARIES['workspace list'],
  description:
    'Lists the workspaces: with --json a JSON array of {id, name, plan, catalogSource};\n' +
    'without, one tab-separated line per workspace.',
  flags: { db: DB_FLAG, json: { type: 'boolean', help: 'print a JSON array' } },
  async run({ values }, config) {
    const store = await openDb(values.db, config);
    try {
      const workspaces = await listWorkspaces(store);
      if (values.json) {
        process.stdout.write(`${JSON.stringify(workspaces)}\n`);
      } else {
        for (const w of workspaces)
          process.stdout.write(`${w.id}\t${w.plan}\t${w.catalogSource}\t${w.name}\n`);
      }
    } finally {
      await store.close();
    }
  },
});

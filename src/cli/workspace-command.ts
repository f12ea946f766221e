import { listWorkspaces } from '../admin/workspaces.js';
import type { Config } from '../config.js';
import { openDb, parse, UsageError } from './args.js';

export async function workspaceCommand(argv: string[], config: Config): Promise<void> {
  const [action, ...rest] = argv;
  if (action !== 'list') throw new UsageError('usage: vms-read workspace list --db D [--json]');
  const { values } = parse(rest, {
    db: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
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
}

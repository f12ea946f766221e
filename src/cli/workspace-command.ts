import { listWorkspaces } from '../admin/workspaces.js';
import { openStore } from '../store/open-store.js';
import { dbOf, parse, UsageError } from './args.js';

export async function workspaceCommand(argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  if (action !== 'list') throw new UsageError('usage: vms-read workspace list --db D [--json]');
  const { values } = parse(rest, {
    db: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  const store = await openStore(dbOf(values.db));
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

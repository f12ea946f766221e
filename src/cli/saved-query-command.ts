import { createSavedQuery } from '../admin/saved-queries.js';
import type { Config } from '../config.js';
import { SAVED_QUERY_KINDS } from '../records/resources.js';
import { checkSavedDefinition } from '../semantic/saved-definition.js';
import { openDb, parse, plainIdOf, required, requiredId, UsageError } from './args.js';

type Kind = (typeof SAVED_QUERY_KINDS)[number];

/** `saved-query create`: stores `{query, period?}` after checking its shape; prints the new id alone. */
export async function savedQueryCommand(argv: string[], config: Config): Promise<void> {
  const [action, ...rest] = argv;
  if (action !== 'create')
    throw new UsageError(
      'usage: vms-read saved-query create --db D --workspace W --kind K --name TEXT --definition JSON [--dashboard ID]',
    );
  const { values } = parse(rest, {
    db: { type: 'string' },
    workspace: { type: 'string' },
    kind: { type: 'string' },
    name: { type: 'string' },
    definition: { type: 'string' },
    dashboard: { type: 'string' },
  });
  const kind = required(values.kind, '--kind');
  if (!(SAVED_QUERY_KINDS as readonly string[]).includes(kind))
    throw new UsageError(`--kind must be one of ${SAVED_QUERY_KINDS.join(', ')}`);
  const name = required(values.name, '--name');
  const checked = checkSavedDefinition(required(values.definition, '--definition'));
  if (!checked.ok) throw new UsageError(`--definition ${checked.problem}`);
  const dashboardId = plainIdOf(values.dashboard, '--dashboard') ?? null;
  if (dashboardId !== null && kind !== 'dashboard_tile')
    throw new UsageError('--dashboard goes with --kind dashboard_tile');
  const workspaceId = requiredId(values.workspace, '--workspace');
  const store = await openDb(values.db, config);
  try {
    const id = await createSavedQuery(
      store,
      {
        workspaceId,
        kind: kind as Kind,
        name,
        definition: checked.definition,
        dashboardId,
        author: 'cli',
      },
      new Date(),
    );
    process.stdout.write(`${id}\n`);
  } finally {
    await store.close();
  }
}

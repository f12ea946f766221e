import type { Config } from '../config.js';
import { SAVED_QUERY_KINDS } from '../records/resources.js';
import { DB_FLAG, openDb, plainIdOf, required, requiredId, UsageError } from './args.js';
import { defineCommand, type Values } from './command.js';
import { SUMMARIES } from './summaries.js';

type Kind = (typeof SAVED_QUERY_KINDS)[number];

const FLAGS = {
  db: DB_FLAG,
  workspace: { type: 'string', value: 'W', help: 'the workspace id' },
  kind: { type: 'string', value: 'K', help: SAVED_QUERY_KINDS.join(', ') },
  name: { type: 'string', value: 'TEXT', help: 'its name, as people will see it' },
  definition: { type: 'string', value: 'JSON', help: '{"query": {...}, "period"?: {...}}' },
  dashboard: { type: 'string', value: 'ID', help: 'the dashboard of a dashboard_tile' },
} as const;

/** `saved-query create`: stores `{query, period?}` after checking its shape; prints the new id alone. */
export const savedQueryCreateCommand = defineCommand({
  name: 'saved-query create',
  synopsis: `--db D --workspace W --kind ${SAVED_QUERY_KINDS.join('|')} --name TEXT --definition JSON [--dashboard ID]`,
  summary: SUMMARIES['saved-query create'],
  description:
    'Stores a saved query of workspace W, visible to its staff tokens, after checking its\n' +
    'definition {query, period?}; prints the new id alone.',
  flags: FLAGS,
  run: ({ values }, config) => create(values, config),
});

async function create(values: Values<typeof FLAGS>, config: Config): Promise<void> {
  const kind = required(values.kind, '--kind');
  if (!(SAVED_QUERY_KINDS as readonly string[]).includes(kind))
    throw new UsageError(`--kind must be one of ${SAVED_QUERY_KINDS.join(', ')}`);
  const name = required(values.name, '--name');
  // Loaded here, not at start: its schemas compile on load, which only this command needs.
  const { checkSavedDefinition } = await import('../semantic/saved-definition.js');
  const { createSavedQuery } = await import('../admin/saved-queries.js');
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

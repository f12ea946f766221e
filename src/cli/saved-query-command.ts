import { randomUUID } from 'node:crypto';
import { Value } from 'typebox/value';
import { definitionIsCoherent, SavedDefinitionSchema } from '../semantic/query-schema.js';
import { openStore } from '../store/open-store.js';
import { dbOf, parse, required, UsageError } from './args.js';

const KINDS = ['library', 'dashboard_tile', 'briefing'];

/** `saved-query create`: stores `{query, period?}` after checking its shape; prints the new id alone. */
export async function savedQueryCommand(argv: string[]): Promise<void> {
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
  if (!KINDS.includes(kind))
    throw new UsageError('--kind must be library, dashboard_tile or briefing');
  const name = required(values.name, '--name');
  let definition: unknown;
  try {
    definition = JSON.parse(required(values.definition, '--definition'));
  } catch {
    throw new UsageError('--definition must be JSON');
  }
  if (!Value.Check(SavedDefinitionSchema, definition) || !definitionIsCoherent(definition)) {
    throw new UsageError(
      '--definition must be {"query": {...}, "period"?: {...}} as run_semantic_query accepts',
    );
  }
  if (values.dashboard !== undefined && kind !== 'dashboard_tile')
    throw new UsageError('--dashboard goes with --kind dashboard_tile');
  const workspaceId = required(values.workspace, '--workspace');
  const store = await openStore(dbOf(values.db));
  try {
    if (!(await store.getWorkspace(workspaceId)))
      throw new UsageError(`unknown workspace: ${workspaceId}`);
    const id = `sq_${randomUUID()}`;
    const now = new Date().toISOString();
    await store.insertSavedQuery({
      id,
      workspace_id: workspaceId,
      kind,
      name,
      dashboard_id: values.dashboard ?? null,
      definition: JSON.stringify(definition),
      author: 'cli',
      pinned_at: now,
      created_at: now,
    });
    process.stdout.write(`${id}\n`);
  } finally {
    await store.close();
  }
}

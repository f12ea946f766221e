/**
 * Each command's one line, by its name as typed, in the order the help lists them. The
 * dispatcher lists and finds commands from this alone and loads a command's module only when it
 * runs (or prints its own help): `vms-read --help` or `audit worker` does not load the server,
 * the seed generator or the importer. Each command's definition takes its line from here.
 */
export const SUMMARIES = {
  demo: 'seed data/demo.db if missing, mint demo tokens and serve it (npm start)',
  seed: 'create the schema and deterministic synthetic data; prints a JSON summary',
  serve: 'serve the HTTP API and MCP (at /mcp) on a database',
  mcp: 'MCP over stdio, as the holder of one token',
  'workspace list': 'list the workspaces (with --json, a JSON array)',
  'token create': 'mint a token; prints it alone on stdout',
  'token revoke': 'revoke a token; prints "revoked"',
  'catalog enable': "add a metric to a workspace's catalog",
  'catalog disable': "remove a metric from a workspace's catalog",
  'saved-query create': 'store a saved query; prints the new id alone',
  import: 'load DIR/<table>.csv|.ndjson (and deletions) into a workspace, all or nothing',
  erase: "erase a worker's personal data (name and email)",
  'webhook create': 'subscribe a URL to what list_changes shows a token; prints {id, secret}',
  'webhook list': 'list the webhook subscriptions (with --json, a JSON array)',
  'webhook disable': 'stop pushing to a subscription',
  'webhook enable': 'start pushing to a subscription again',
  'webhook delete': 'remove a subscription',
  'webhook deliveries': "a subscription's recent delivery attempts, newest first",
  'facts refresh': 'rebuild the report facts after writes by other means than seed and import',
  'audit list': 'list the access trail, newest first',
  'audit worker': 'who saw a worker: the events that revealed it, newest first',
  'audit verify': 'check that no event of the access trail was changed, removed or inserted',
  'audit heads': "print each access trail chain's head, to keep outside the database",
} as const;

export type CommandName = keyof typeof SUMMARIES;

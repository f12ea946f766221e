#!/usr/bin/env node
import { AdminError } from '../admin/admin-error.js';
import { readConfig, type Config } from '../config.js';
import { NoDatabaseError } from '../store/open-store.js';
import { UsageError } from './args.js';
import { catalogCommand } from './catalog-command.js';
import { demoCommand } from './demo-command.js';
import { factsCommand } from './facts-command.js';
import { importCommand } from './import-command.js';
import { mcpCommand } from './mcp-command.js';
import { savedQueryCommand } from './saved-query-command.js';
import { seedCommand } from './seed-command.js';
import { serveCommand } from './serve-command.js';
import { tokenCommand } from './token-command.js';
import { workspaceCommand } from './workspace-command.js';

const COMMANDS: Record<string, (argv: string[], config: Config) => Promise<void>> = {
  demo: demoCommand,
  seed: seedCommand,
  serve: serveCommand,
  mcp: mcpCommand,
  workspace: workspaceCommand,
  token: tokenCommand,
  catalog: catalogCommand,
  'saved-query': savedQueryCommand,
  import: importCommand,
  facts: factsCommand,
};

const USAGE = `usage: vms-read <command> [options]
  demo [--port N]                           seed data/demo.db if missing, mint demo tokens, serve
  seed --db D [--scale tiny|small|medium|large] [--seed N] [--as-of YYYY-MM-DD] [--force]
  serve --db D [--host 127.0.0.1] [--port 8080]
  mcp --db D --token T                      MCP over stdio (token also from VMS_READ_TOKEN)
  workspace list --db D [--json]
  token create --db D --workspace W --role staff|worker|billing_entity [--worker ID] [--supplier ID] --scopes a,b [--expires ISO]
  token revoke --db D --token T
  catalog enable|disable --db D --workspace W --metric KEY
  saved-query create --db D --workspace W --kind library|dashboard_tile|briefing --name TEXT --definition JSON [--dashboard ID]
  import --db D --workspace W DIR           load DIR/<table>.csv|.ndjson into W, all or nothing
  facts refresh --db D                      rebuild the report facts after writes by other means`;

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) throw new UsageError(name ? `unknown command: ${name}` : 'a command is required');
  // The environment is read here, once, and checked (a bad value stops every command: exit 1).
  await command(rest, readConfig());
}

main(process.argv.slice(2)).catch((error: unknown) => {
  // An admin request refused as asked (unknown workspace, no such token) is a usage mistake too.
  if (error instanceof UsageError || error instanceof AdminError) {
    console.error(`vms-read: ${error.message}\n${USAGE}`);
    process.exit(2);
  }
  if (error instanceof NoDatabaseError) {
    // A wrong --db, not a usage mistake: one line naming the database, no usage text.
    console.error(`vms-read: ${error.message}`);
    process.exit(2);
  }
  console.error(`vms-read: ${(error as Error).message}`);
  process.exit(1);
});

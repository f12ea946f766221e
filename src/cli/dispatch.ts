import { AdminError } from '../admin/admin-error.js';
import { readConfig } from '../config.js';
import { NoDatabaseError } from '../store/no-database-error.js';
import { UsageError } from './args-error.js';
import { table, type Command } from './command.js';
import { SUMMARIES, type CommandName } from './summaries.js';
import { packageVersion } from './version.js';

/** A command as listed: its name and line; its module loaded only to run it or print its help. */
interface Listed {
  name: CommandName;
  summary: string;
  load(): Promise<Command>;
}

/** How each command's definition is loaded (a module of its own, with what it alone needs). */
const LOADERS: Record<CommandName, () => Promise<Command>> = {
  demo: async () => (await import('./demo-command.js')).demoCommand,
  seed: async () => (await import('./seed-command.js')).seedCommand,
  serve: async () => (await import('./serve-command.js')).serveCommand,
  mcp: async () => (await import('./mcp-command.js')).mcpCommand,
  'workspace list': async () => (await import('./workspace-command.js')).workspaceListCommand,
  'token create': async () => (await import('./token-command.js')).tokenCreateCommand,
  'token revoke': async () => (await import('./token-command.js')).tokenRevokeCommand,
  'catalog enable': async () => (await import('./catalog-command.js')).catalogEnableCommand,
  'catalog disable': async () => (await import('./catalog-command.js')).catalogDisableCommand,
  'saved-query create': async () =>
    (await import('./saved-query-command.js')).savedQueryCreateCommand,
  import: async () => (await import('./import-command.js')).importCommand,
  erase: async () => (await import('./erase-command.js')).eraseCommand,
  'webhook create': async () => (await import('./webhook-command.js')).webhookCreateCommand,
  'webhook list': async () => (await import('./webhook-command.js')).webhookListCommand,
  'webhook disable': async () => (await import('./webhook-command.js')).webhookDisableCommand,
  'webhook enable': async () => (await import('./webhook-command.js')).webhookEnableCommand,
  'webhook delete': async () => (await import('./webhook-command.js')).webhookDeleteCommand,
  'webhook deliveries': async () => (await import('./webhook-command.js')).webhookDeliveriesCommand,
  'facts refresh': async () => (await import('./facts-command.js')).factsRefreshCommand,
  'audit list': async () => (await import('./audit-command.js')).auditListCommand,
  'audit worker': async () => (await import('./audit-command.js')).auditWorkerCommand,
  'audit verify': async () => (await import('./audit-command.js')).auditVerifyCommand,
  'audit heads': async () => (await import('./audit-command.js')).auditHeadsCommand,
};

/** Every command, in the order the help lists them; a two-word name is typed as two words. */
export const COMMANDS: readonly Listed[] = (Object.keys(SUMMARIES) as CommandName[]).map(
  (name) => ({ name, summary: SUMMARIES[name], load: LOADERS[name] }),
);

const commandList = (commands: readonly Listed[]) =>
  table(commands.map((c): [string, string] => [c.name, c.summary]));

const HELP = [
  'usage: vms-read <command> [options]',
  '       vms-read <command> --help',
  '       vms-read --version',
  '',
  'A read-only HTTP/JSON API and MCP server over a contingent-workforce program.',
  '',
  'commands:',
  ...commandList(COMMANDS),
  '',
  'options:',
  ...table([
    ['-h, --help', "print this help (after a command's name: that command's help)"],
    ['-v, --version', 'print the version'],
  ]),
  '',
  '--db defaults to VMS_READ_DB; docs/operations.md lists every environment variable.',
  'Exit status: 0 done; 1 failed; 2 a usage mistake (printed with the usage), or a request',
  'refused (an unknown workspace or token, a --db naming no vms-read database).',
].join('\n');

/** The help of a two-word command's first word (`token`): its commands. */
function groupHelp(word: string, group: readonly Listed[]): string {
  const actions = group.map((c) => c.name.slice(word.length + 1)).join('|');
  return [
    `usage: vms-read ${word} ${actions} [options]`,
    '',
    'commands:',
    ...commandList(group),
    '',
    `vms-read ${word} <command> --help prints a command's options.`,
  ].join('\n');
}

/** What the arguments ask for: a text to print (help, version), or a command to run. */
type Request = { print: string } | { command: Command; argv: string[] };

/** A listed command, loaded: its help when the arguments ask for it, else it runs on them. */
async function loaded(listed: Listed, argv: string[]): Promise<Request> {
  const command = await listed.load();
  return command.asksForHelp(argv) ? { print: command.usage } : { command, argv };
}

async function requestOf(argv: string[]): Promise<Request> {
  const [first, ...rest] = argv;
  if (first === undefined) throw new UsageError('a command is required', HELP);
  if (first === '-h' || first === '--help') return { print: HELP };
  if (first === '-v' || first === '--version') return { print: packageVersion() };
  // `vms-read help token create` is `vms-read token create --help`.
  if (first === 'help') return requestOf([...rest, '--help']);
  if (first.startsWith('-')) throw new UsageError(`unknown option ${first}`, HELP);
  const command = COMMANDS.find((c) => c.name === first);
  if (command) return loaded(command, rest);
  const group = COMMANDS.filter((c) => c.name.startsWith(`${first} `));
  if (group.length === 0) throw new UsageError(`unknown command ${JSON.stringify(first)}`, HELP);
  const help = groupHelp(first, group);
  const [second, ...more] = rest;
  if (second === '-h' || second === '--help') return { print: help };
  const sub = group.find((c) => c.name === `${first} ${second}`);
  if (!sub) {
    const named = group.map((c) => c.name).join(', ');
    throw new UsageError(
      second === undefined || second.startsWith('-')
        ? `${first} needs a command: ${named}`
        : `unknown command ${JSON.stringify(`${first} ${second}`)}`,
      help,
    );
  }
  return loaded(sub, more);
}

async function main(argv: string[]): Promise<void> {
  const request = await requestOf(argv);
  if ('print' in request) {
    process.stdout.write(`${request.print}\n`);
    return;
  }
  // The environment is read here, once, and checked (a bad value stops every command: exit 1).
  await request.command.run(request.argv, readConfig());
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    // A usage mistake: the one line, then the help of the command it was made in.
    console.error(`vms-read: ${error.message}\n${error.usage ?? HELP}`);
    process.exit(2);
  }
  if (error instanceof AdminError || error instanceof NoDatabaseError) {
    // A right command line refused by what it met (an unknown workspace, no such token, a wrong
    // --db): one line, no usage text.
    console.error(`vms-read: ${error.message}`);
    process.exit(2);
  }
  console.error(`vms-read: ${(error as Error).message}`);
  process.exit(1);
});

import { AdminError } from '../admin/admin-error.js';
import { readConfig } from '../config.js';
import { NoDatabaseError } from '../store/open-store.js';
import { UsageError } from './args.js';
import { catalogDisableCommand, catalogEnableCommand } from './catalog-command.js';
import { table, type Command } from './command.js';
import { demoCommand } from './demo-command.js';
import { eraseCommand } from './erase-command.js';
import { auditListCommand, auditVerifyCommand, auditWorkerCommand } from './audit-command.js';
import { factsRefreshCommand } from './facts-command.js';
import { importCommand } from './import-command.js';
import { mcpCommand } from './mcp-command.js';
import { savedQueryCreateCommand } from './saved-query-command.js';
import { seedCommand } from './seed-command.js';
import { serveCommand } from './serve-command.js';
import { tokenCreateCommand, tokenRevokeCommand } from './token-command.js';
import { packageVersion } from './version.js';
import { workspaceListCommand } from './workspace-command.js';
import {
  webhookCreateCommand,
  webhookDeleteCommand,
  webhookDeliveriesCommand,
  webhookDisableCommand,
  webhookEnableCommand,
  webhookListCommand,
} from './webhook-command.js';

/** Every command, in the order the help lists them; a two-word name is typed as two words. */
const COMMANDS: readonly Command[] = [
  demoCommand,
  seedCommand,
  serveCommand,
  mcpCommand,
  workspaceListCommand,
  tokenCreateCommand,
  tokenRevokeCommand,
  catalogEnableCommand,
  catalogDisableCommand,
  savedQueryCreateCommand,
  importCommand,
  eraseCommand,
  webhookCreateCommand,
  webhookListCommand,
  webhookDisableCommand,
  webhookEnableCommand,
  webhookDeleteCommand,
  webhookDeliveriesCommand,
  factsRefreshCommand,
  auditListCommand,
  auditWorkerCommand,
  auditVerifyCommand,
];

const commandList = (commands: readonly Command[]) =>
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
function groupHelp(word: string, group: readonly Command[]): string {
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

function requestOf(argv: string[]): Request {
  const [first, ...rest] = argv;
  if (first === undefined) throw new UsageError('a command is required', HELP);
  if (first === '-h' || first === '--help') return { print: HELP };
  if (first === '-v' || first === '--version') return { print: packageVersion() };
  // `vms-read help token create` is `vms-read token create --help`.
  if (first === 'help') return requestOf([...rest, '--help']);
  if (first.startsWith('-')) throw new UsageError(`unknown option ${first}`, HELP);
  const command = COMMANDS.find((c) => c.name === first);
  if (command)
    return command.asksForHelp(rest) ? { print: command.usage } : { command, argv: rest };
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
  return sub.asksForHelp(more) ? { print: sub.usage } : { command: sub, argv: more };
}

async function main(argv: string[]): Promise<void> {
  const request = requestOf(argv);
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

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../src/store/open-store.js';
import { SUMMARIES } from '../../src/cli/summaries.js';
import { CLI, runCli } from '../support/cli.js';

/**
 * Every command, as typed: those of DESIGN §5 and the rest (`facts refresh`, `erase`, `webhook …`,
 * `audit …`). Each one's help is its own (the dispatcher loads a command's module by its name).
 */
const COMMANDS = Object.keys(SUMMARIES);

/** No default database or token from the machine running the tests. */
const CLEAN = { VMS_READ_DB: '', VMS_READ_TOKEN: '' };

const run = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { ...CLEAN, ...env });

/** A usage mistake: exit 2, the one error line, then the help `--help` prints, on stderr only. */
function assertUsageError(args: string[], line: string, help: string) {
  const result = run(args);
  assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
  assert.equal(result.stdout, '', args.join(' '));
  assert.equal(result.stderr, `vms-read: ${line}\n${help}`, args.join(' '));
}

describe('vms-read help, version and usage errors (DESIGN §5)', () => {
  // Each command's --help output, asked once (every run of the CLI costs a node start).
  const helps = new Map<string, string>();
  const helpOf = (command: string) => {
    if (!helps.has(command)) helps.set(command, run([...command.split(' '), '--help']).stdout);
    return helps.get(command) as string;
  };

  it('vms-read --help (and -h, help) lists every command with a summary, on stdout, exit 0', () => {
    const help = run(['--help']);
    assert.equal(help.status, 0, help.stderr);
    assert.equal(help.stderr, '');
    assert.match(help.stdout, /^usage: vms-read <command> \[options\]\n/);
    for (const command of COMMANDS)
      assert.match(help.stdout, new RegExp(`\\n  ${command} +\\S.*\\n`), command);
    assert.match(help.stdout, /--version/);
    assert.equal(run(['-h']).stdout, help.stdout);
    assert.equal(run(['help']).stdout, help.stdout);
  });

  it("<command> --help prints that command's usage on stdout, exit 0, for every command", () => {
    for (const command of COMMANDS) {
      const words = command.split(' ');
      const result = run([...words, '--help']);
      assert.equal(result.status, 0, `${command}: ${result.stderr}`);
      assert.equal(result.stderr, '', command);
      assert.match(result.stdout, new RegExp(`^usage: vms-read ${command}( |\\n)`), command);
      assert.match(result.stdout, /\noptions:\n/, command);
      assert.match(result.stdout, /\n {2}-h, --help +print this help\n$/, command);
      helps.set(command, result.stdout);
    }
    for (const command of ['seed', 'token create']) {
      const words = command.split(' ');
      assert.equal(run([...words, '-h']).stdout, helpOf(command), `${command} -h`);
      assert.equal(run(['help', ...words]).stdout, helpOf(command), `help ${command}`);
    }
  });

  it('--help wins over the other arguments and needs no valid environment', () => {
    const help = helpOf('token create');
    const result = run(['token', 'create', '--bogus', '--role', 'admin', '--help'], {
      VMS_READ_QUOTA_PER_MINUTE: 'lots',
    });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, help);
    // After `--`, or as a flag's value, `--help` is no request for help.
    assertUsageError(['serve', '--', '--help'], 'unexpected argument "--help"', helpOf('serve'));
  });

  it("a two-word command's first word alone prints its commands (--help: stdout, exit 0)", () => {
    for (const word of ['token', 'catalog']) {
      const result = run([word, '--help']);
      assert.equal(result.status, 0, `${word}: ${result.stderr}`);
      assert.match(result.stdout, new RegExp(`^usage: vms-read ${word} `), word);
      for (const command of COMMANDS.filter((c) => c.startsWith(`${word} `)))
        assert.match(result.stdout, new RegExp(`\\n  ${command} +\\S`), command);
    }
    const help = run(['token', '--help']).stdout;
    assertUsageError(['token'], 'token needs a command: token create, token revoke', help);
    assertUsageError(['token', 'mint'], 'unknown command "token mint"', help);
  });

  it('--version (and -v) prints the version of package.json, exit 0', () => {
    const { version } = JSON.parse(
      readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    // -v from another directory: the version is found from the module, not the working directory.
    for (const result of [run(['--version']), runCli(['-v'], {}, tmpdir())]) {
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout, `${version}\n`);
    }
    // Its first line runs it as the package bin, with settings for env and flags for Node.
    assert.match(readFileSync(CLI, 'utf8'), /^#!\/usr\/bin\/env -S (\w+=\S+ )*node( [^\n]*)?\n/);
  });

  it('an unknown flag: exit 2, one error line, then the usage, on stderr', () => {
    assertUsageError(['seed', '--bogus'], 'unknown option --bogus', helpOf('seed'));
    assertUsageError(
      ['token', 'create', '--db', 'x.db', '-x'],
      'unknown option -x',
      helpOf('token create'),
    );
    assertUsageError(['--bogus'], 'unknown option --bogus', run(['--help']).stdout);
  });

  it('a missing or misplaced value: exit 2, one error line, then the usage', () => {
    assertUsageError(['workspace', 'list', '--db'], '--db needs a value', helpOf('workspace list'));
    assertUsageError(
      ['serve', '--db', '--port', '8080'],
      '--db needs a value (one that starts with "-" goes as --db=VALUE)',
      helpOf('serve'),
    );
    assertUsageError(
      ['workspace', 'list', '--db', 'x.db', '--json=yes'],
      '--json takes no value',
      helpOf('workspace list'),
    );
    assertUsageError(['serve', 'extra'], 'unexpected argument "extra"', helpOf('serve'));
  });

  it('a missing required argument: exit 2, one error line, then the usage', () => {
    assertUsageError(
      ['workspace', 'list'],
      '--db (or VMS_READ_DB) is required',
      helpOf('workspace list'),
    );
    assertUsageError(
      ['token', 'revoke', '--db', 'x.db'],
      '--token (or VMS_READ_TOKEN) is required',
      helpOf('token revoke'),
    );
    assertUsageError(
      ['catalog', 'enable', '--db', 'x.db', '--workspace', 'ws_business'],
      '--metric is required',
      helpOf('catalog enable'),
    );
    assertUsageError(
      ['import', '--db', 'x.db', '--workspace', 'ws_business'],
      'import takes exactly one DIR',
      helpOf('import'),
    );
  });

  it('an unknown command: exit 2, one error line, then the list of commands', () => {
    const help = run(['--help']).stdout;
    assertUsageError(['nonsense'], 'unknown command "nonsense"', help);
    assertUsageError([], 'a command is required', help);
  });
});

describe('an error that is not about usage is one line, without the usage', () => {
  let dir: string;
  let db: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vms-read-usage-'));
    // A vms-read database without data: the schema only (enough for admin refusals).
    db = join(dir, 'empty.db');
    await (await openStore(db, { create: true })).close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const assertOneLine = (args: string[], line: string, status = 2) => {
    const result = run(args);
    assert.equal(result.status, status, `${args.join(' ')}: ${result.stderr}`);
    assert.equal(result.stderr, `vms-read: ${line}\n`, args.join(' '));
    assert.equal(result.stdout, '', args.join(' '));
  };

  it('no such token, an unknown workspace (AdminError): exit 2', () => {
    assertOneLine(['token', 'revoke', '--db', db, '--token', 'vmsr_nope'], 'no such token');
    assertOneLine(
      ['catalog', 'enable', '--db', db, '--workspace', 'ws_nope', '--metric', 'spend'],
      'unknown workspace: ws_nope',
    );
    assertOneLine(
      [
        ...['token', 'create', '--db', db, '--workspace', 'ws_nope'],
        ...['--role', 'staff', '--scopes', 'read:program'],
      ],
      'unknown workspace: ws_nope',
    );
  });

  it('a --db naming no vms-read database: exit 2', () => {
    const missing = join(dir, 'missing.db');
    assertOneLine(
      ['workspace', 'list', '--db', missing],
      `no vms-read database at ${missing}: no such file (only vms-read seed and demo create one)`,
    );
  });

  it('a bad environment variable: exit 1', () => {
    const result = run(['workspace', 'list', '--db', db], { VMS_READ_QUOTA_PER_MINUTE: 'lots' });
    assert.equal(result.status, 1);
    assert.equal(
      result.stderr,
      'vms-read: VMS_READ_QUOTA_PER_MINUTE must be a whole number (0 turns the quota off)\n',
    );
  });
});

import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Config } from '../config.js';
import { UsageError } from './args-error.js';

/**
 * A flag a command takes: how node's parseArgs reads it, and its line in the command's help.
 * The help is built from the same declaration the parser reads, so a flag cannot be accepted
 * without being documented, nor documented without being accepted.
 */
export interface Flag {
  type: 'string' | 'boolean';
  /** The placeholder after a string flag in its help line (`--db D`). */
  value?: string;
  /** What the flag does, one line. */
  help: string;
  /** A string flag that may be given again and again (`--type a --type b`): its values in order. */
  multiple?: boolean;
}

export type Flags = Record<string, Flag>;

/**
 * The parsed values: a string flag gives its text (a `multiple` one, its texts), a boolean flag
 * true; absent ones undefined.
 */
export type Values<F extends Flags> = {
  [K in keyof F]?: F[K]['type'] extends 'string'
    ? F[K]['multiple'] extends true
      ? string[]
      : string
    : boolean;
};

export interface CommandSpec<F extends Flags> {
  /** As typed: `seed`, `token create`. */
  name: string;
  /** What follows the name in the usage line, e.g. `--db D [--json]`. */
  synopsis: string;
  /** One line for the list of commands. */
  summary: string;
  /** A few sentences for the command's own help (the summary when absent). */
  description?: string;
  flags: F;
  /** Whether it takes positional arguments (`import DIR`); otherwise one is a usage error. */
  positionals?: boolean;
  run(args: { values: Values<F>; positionals: string[] }, config: Config): Promise<void>;
}

/** A command as the dispatcher sees it: its name, summary, usage text, and how to run it. */
export interface Command {
  name: string;
  summary: string;
  /** The whole help: the usage line, what it does, its flags. Printed for --help and after a usage error. */
  usage: string;
  /** True when the arguments hold `-h` or `--help` as a flag (not as a flag's value, not after `--`). */
  asksForHelp(argv: string[]): boolean;
  /** Parses strictly (a usage mistake throws UsageError carrying this usage) and runs. */
  run(argv: string[], config: Config): Promise<void>;
}

const HELP_FLAG: Flag = { type: 'boolean', help: 'print this help' };

export function defineCommand<F extends Flags>(spec: CommandSpec<F>): Command {
  const options: NonNullable<ParseArgsConfig['options']> = {
    ...Object.fromEntries(
      Object.entries(spec.flags).map(([name, { type, multiple }]) => [
        name,
        { type, ...(multiple ? { multiple } : {}) },
      ]),
    ),
    help: { type: 'boolean', short: 'h' },
  };
  const usage = usageOf(spec);
  const tokensOf = (argv: string[]) =>
    parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true }).tokens;
  return {
    name: spec.name,
    summary: spec.summary,
    usage,
    asksForHelp: (argv) => tokensOf(argv).some((t) => t.kind === 'option' && t.name === 'help'),
    async run(argv, config) {
      try {
        let parsed;
        try {
          parsed = parseArgs({
            args: argv,
            options,
            strict: true,
            allowPositionals: spec.positionals ?? false,
          });
        } catch (error) {
          throw new UsageError(problemOf(error as NodeJS.ErrnoException, tokensOf(argv), spec));
        }
        const { values, positionals } = parsed;
        await spec.run({ values: values as Values<F>, positionals }, config);
      } catch (error) {
        if (error instanceof UsageError) error.usage ??= usage;
        throw error;
      }
    },
  };
}

type Token = ReturnType<typeof parseArgs>['tokens'] extends (infer T)[] | undefined ? T : never;

/**
 * One line for what parseArgs refused, in the words of this CLI (its own messages run over
 * several lines, or name options the way a program, not a person, would).
 */
function problemOf(error: NodeJS.ErrnoException, tokens: Token[], spec: CommandSpec<Flags>) {
  for (const token of tokens) {
    if (token.kind === 'positional' && !spec.positionals)
      return `unexpected argument ${JSON.stringify(token.value)}`;
    if (token.kind !== 'option') continue;
    const flag = spec.flags[token.name];
    if (!flag && token.name !== 'help') return `unknown option ${token.rawName}`;
    if (flag?.type === 'boolean' && token.value !== undefined)
      return `${token.rawName} takes no value`;
    if (flag?.type === 'string' && token.value === undefined)
      return `${token.rawName} needs a value`;
    if (flag?.type === 'string' && !token.inlineValue && token.value?.startsWith('-'))
      return `${token.rawName} needs a value (one that starts with "-" goes as ${token.rawName}=VALUE)`;
  }
  return error.message.split('\n')[0];
}

/** The command's help: usage line, description, then one line per flag. */
function usageOf(spec: CommandSpec<Flags>): string {
  const rows: [string, string][] = [
    ...Object.entries(spec.flags).map(([name, flag]): [string, string] => [
      `--${name}${flag.type === 'string' ? ` ${flag.value ?? 'VALUE'}` : ''}`,
      flag.help,
    ]),
    ['-h, --help', HELP_FLAG.help],
  ];
  return [
    `usage: vms-read ${spec.name}${spec.synopsis ? ` ${spec.synopsis}` : ''}`,
    '',
    spec.description ?? spec.summary,
    '',
    'options:',
    ...table(rows),
  ].join('\n');
}

/** Two columns, the first padded to its widest entry, indented by two spaces. */
export function table(rows: [string, string][]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

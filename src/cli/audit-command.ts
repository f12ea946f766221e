import { readFile } from 'node:fs/promises';
import { auditEvents, auditHeads, headsIn, verifyAudit } from '../admin/audit.js';
import type { AuditChainHead } from '../store/sql/audit/audit-check-reads.js';
import { eventText, LineWriter } from './audit-output.js';
import type { AuditQuery } from '../store/store.js';
import { DB_FLAG, openDb, requiredId, UsageError } from './args.js';
import { defineCommand } from './command.js';
import { SUMMARIES } from './summaries.js';

/** An instant given as an ISO date or date-time: its ms. */
function instantOf(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms))
    throw new UsageError(
      `${flag} must be an ISO date or date-time, e.g. 2026-11-01 or 2026-11-01T09:00:00Z`,
    );
  return ms;
}

const FORMAT_FLAG = {
  type: 'string',
  value: 'F',
  help: 'ocsf: OCSF API Activity events (class 6003), one a line, for a SIEM',
} as const;
const JSON_FLAG = { type: 'boolean', help: 'one event a line, as JSON' } as const;

/** Prints the events of `query`, newest first, as lines, JSON lines or OCSF. */
async function printEvents(
  db: string | undefined,
  query: Omit<AuditQuery, 'limit' | 'before'>,
  values: { json?: boolean; format?: string },
  config: Parameters<typeof openDb>[1],
): Promise<void> {
  if (values.format !== undefined && values.format !== 'ocsf')
    throw new UsageError('--format must be ocsf');
  const format = values.format === 'ocsf' ? 'ocsf' : values.json ? 'json' : 'line';
  const store = await openDb(db, config);
  const out = new LineWriter();
  try {
    for await (const event of auditEvents(store, query)) {
      if (out.closed) break;
      await out.line(eventText(event, format));
    }
    await out.end();
  } finally {
    await store.close();
  }
}

export const auditListCommand = defineCommand({
  name: 'audit list',
  synopsis:
    '--db D [--workspace W] [--since ISO] [--until ISO] [--worker ID] [--client ID] [--operation OP] [--json] [--format ocsf]',
  summary: SUMMARIES['audit list'],
  description:
    'Lists what was read, newest first: an event per answered request of the API and\n' +
    'of MCP (DESIGN §4.17), with its caller, app, address, operation, status and the\n' +
    'records it revealed (ids only; those with a name or work email marked). Filters\n' +
    'combine: --worker keeps the events that revealed that worker or a record naming it\n' +
    '(in any workspace without --workspace). Without --json, one tab-separated line\n' +
    'each: when, workspace, caller, operation, status, what it revealed, address.\n' +
    'Control and bidirectional characters are written as escapes (\\u202e); a closed\n' +
    'pipe (| head) ends the listing quietly.',
  flags: {
    db: DB_FLAG,
    workspace: { type: 'string', value: 'W', help: 'the workspace id' },
    since: { type: 'string', value: 'ISO', help: 'events at or after this date or instant' },
    until: { type: 'string', value: 'ISO', help: 'events before this date or instant' },
    worker: { type: 'string', value: 'ID', help: 'events that revealed this worker' },
    client: { type: 'string', value: 'ID', help: "an OAuth client's id" },
    operation: { type: 'string', value: 'OP', help: 'an operation, e.g. get_worker' },
    json: JSON_FLAG,
    format: FORMAT_FLAG,
  },
  async run({ values }, config) {
    await printEvents(
      values.db,
      {
        workspaceId: values.workspace,
        since: instantOf(values.since, '--since'),
        until: instantOf(values.until, '--until'),
        workerId: values.worker,
        clientId: values.client,
        operation: values.operation,
      },
      values,
      config,
    );
  },
});

export const auditWorkerCommand = defineCommand({
  name: 'audit worker',
  synopsis: '--db D --workspace W --worker ID [--json] [--format ocsf]',
  summary: SUMMARIES['audit worker'],
  description:
    "Answers a person's access request (GDPR art. 15): every event that revealed worker\n" +
    'ID or a record naming it (its timesheets, assignments, expenses), newest first,\n' +
    'those that carried its name or work email marked, with who read it, through which\n' +
    'app, from which address, and when.',
  flags: {
    db: DB_FLAG,
    workspace: { type: 'string', value: 'W', help: 'the workspace id' },
    worker: { type: 'string', value: 'ID', help: 'the worker id' },
    json: JSON_FLAG,
    format: FORMAT_FLAG,
  },
  async run({ values }, config) {
    const workspaceId = requiredId(values.workspace, '--workspace');
    const workerId = requiredId(values.worker, '--worker');
    await printEvents(values.db, { workspaceId, workerId }, values, config);
  },
});

export const auditVerifyCommand = defineCommand({
  name: 'audit verify',
  synopsis: '--db D [--heads FILE]',
  summary: SUMMARIES['audit verify'],
  description:
    'Walks every chain of the trail (one per server process) from its anchor: each\n' +
    "event's hash must be that of its content and the hash before it, its search columns\n" +
    "what it holds, each day's sets and their workers' rows what the events revealed.\n" +
    "With --heads FILE (lines of `audit heads`, or the server's log with its\n" +
    '"access trail head" lines), each chain must still reach its latest head: a chain\n' +
    'cut at its end or removed whole is found. Prints JSON {chains, events, heads?,\n' +
    'breaks}; exits 1 naming the first break. Without heads kept outside it cannot tell\n' +
    'a chain cut at its end, nor one rewritten whole by someone who can write the database.',
  flags: {
    db: DB_FLAG,
    heads: { type: 'string', value: 'FILE', help: 'heads kept outside: audit heads or the log' },
  },
  async run({ values }, config) {
    let heads: AuditChainHead[] | undefined;
    if (values.heads !== undefined) {
      let text: string;
      try {
        text = await readFile(values.heads, 'utf8');
      } catch {
        throw new UsageError(`--heads: cannot read ${values.heads}`);
      }
      heads = headsIn(text);
      if (heads.length === 0) throw new UsageError(`--heads: no heads in ${values.heads}`);
    }
    const store = await openDb(values.db, config);
    try {
      const verification = await verifyAudit(store, heads);
      process.stdout.write(`${JSON.stringify(verification)}\n`);
      const [first] = verification.breaks;
      if (first) {
        console.error(
          // The detail after a dash: some end in words in parentheses of their own (issue 57).
          `vms-read: the access trail does not verify: chain ${first.chainId}, event ${first.seq}: ${first.problem} — ${first.detail}`,
        );
        process.exitCode = 1;
      }
    } finally {
      await store.close();
    }
  },
});

export const auditHeadsCommand = defineCommand({
  name: 'audit heads',
  synopsis: '--db D',
  summary: SUMMARIES['audit heads'],
  description:
    "Prints each chain's head, one JSON line {chain, seq, hash} a chain: its last event,\n" +
    'as the server logs it every minute and at shutdown. Keep them outside the database\n' +
    '(a log shipped elsewhere, a SIEM); `audit verify --heads FILE` checks the trail still\n' +
    'reaches them.',
  flags: { db: DB_FLAG },
  async run({ values }, config) {
    const store = await openDb(values.db, config);
    const out = new LineWriter();
    try {
      for (const head of await auditHeads(store)) await out.line(JSON.stringify(head));
      await out.end();
    } finally {
      await store.close();
    }
  },
});

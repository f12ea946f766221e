import { auditEvents, verifyAudit, type ListedEvent } from '../admin/audit.js';
import { toOcsf } from '../audit/ocsf.js';
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
/** Characters of output written at once. */
const CHUNK = 256 * 1024;
const JSON_FLAG = { type: 'boolean', help: 'one event a line, as JSON' } as const;

/** An OAuth caller's app: its id, with the name it registered quoted (the client's own text). */
const appOf = (caller: { clientId: string | null; clientName?: string }) =>
  `${caller.clientId ?? '?'}${caller.clientName === undefined ? '' : ` ${JSON.stringify(caller.clientName)}`}`;

/** One line of what a person reads: when, where, who, what, and what it revealed. */
function line(event: ListedEvent): string {
  const caller = event.caller
    ? event.caller.kind === 'access_key'
      ? event.caller.keyId
      : `${event.caller.subject} via ${appOf(event.caller)} (${event.caller.issuer})`
    : '-';
  const personal = event.revealed.filter((r) => r.personalData).length;
  const revealed = event.report
    ? `report of ${event.report.rows} rows`
    : `${event.revealed.length} records${personal ? `, ${personal} with personal data` : ''}`;
  return [
    new Date(event.at).toISOString(),
    event.workspace ?? '-',
    `${event.role ?? '-'} ${caller}`,
    `${event.transport} ${event.operation ?? '-'}`,
    `${event.status}${event.code ? ` ${event.code}` : ''}`,
    revealed,
    event.address ?? '-',
  ].join('\t');
}

/** Prints the events of `query`, newest first, as lines, JSON lines or OCSF. */
async function printEvents(
  db: string | undefined,
  query: Omit<AuditQuery, 'limit' | 'before'>,
  values: { json?: boolean; format?: string },
  config: Parameters<typeof openDb>[1],
): Promise<void> {
  if (values.format !== undefined && values.format !== 'ocsf')
    throw new UsageError('--format must be ocsf');
  const store = await openDb(db, config);
  // Lines are written a chunk at a time: a write per event was an eighth of `audit worker`'s time.
  let chunk: string[] = [];
  let size = 0;
  const write = async () => {
    if (!process.stdout.write(chunk.join('')))
      await new Promise((resolve) => process.stdout.once('drain', resolve));
    chunk = [];
    size = 0;
  };
  try {
    for await (const event of auditEvents(store, query)) {
      const text =
        values.format === 'ocsf'
          ? JSON.stringify(toOcsf(event))
          : values.json
            ? JSON.stringify(event)
            : line(event);
      chunk.push(text, '\n');
      size += text.length + 1;
      if (size >= CHUNK) await write();
    }
    if (size > 0) await write();
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
    '(it needs --workspace). Without --json, one tab-separated line each: when,\n' +
    'workspace, caller, operation, status, what it revealed, address.',
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
    if (values.worker !== undefined && values.workspace === undefined)
      throw new UsageError('--worker needs --workspace');
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
  synopsis: '--db D',
  summary: SUMMARIES['audit verify'],
  description:
    'Walks every chain of the trail (one per server process) from its anchor: each\n' +
    "event's hash must be that of its content and the hash before it. Prints JSON\n" +
    '{chains, events, breaks}; exits 1 naming the first event of a chain that does not\n' +
    'follow (changed, missing, does not follow). It cannot tell a chain rewritten whole\n' +
    'by someone who can write the database.',
  flags: { db: DB_FLAG },
  async run({ values }, config) {
    const store = await openDb(values.db, config);
    try {
      const verification = await verifyAudit(store);
      process.stdout.write(`${JSON.stringify(verification)}\n`);
      const [first] = verification.breaks;
      if (first) {
        console.error(
          `vms-read: the access trail does not verify: chain ${first.chainId}, event ${first.seq}: ${first.problem} (${first.detail})`,
        );
        process.exitCode = 1;
      }
    } finally {
      await store.close();
    }
  },
});

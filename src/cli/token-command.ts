import { mintToken, revokeToken } from '../admin/tokens.js';
import { isRole, isScope, type Scope } from '../auth/scopes.js';
import type { Config } from '../config.js';
import {
  DB_FLAG,
  openDb,
  plainIdOf,
  required,
  requiredId,
  TOKEN_FLAG,
  tokenOf,
  UsageError,
} from './args.js';
import { defineCommand, type Values } from './command.js';
import { SUMMARIES } from './summaries.js';

const CREATE_FLAGS = {
  db: DB_FLAG,
  workspace: { type: 'string', value: 'W', help: "the token's workspace id" },
  role: { type: 'string', value: 'R', help: 'staff, worker or billing_entity' },
  worker: { type: 'string', value: 'ID', help: 'the worker a worker token acts as' },
  supplier: { type: 'string', value: 'ID', help: 'the supplier a billing_entity token acts as' },
  scopes: {
    type: 'string',
    value: 'a,b',
    help: 'comma-separated: read:program, read:financial, read:workforce, read:pii, read:audit',
  },
  expires: {
    type: 'string',
    value: 'ISO',
    help: 'when it expires, an ISO 8601 date or timestamp (default: never)',
  },
  'in-url': {
    type: 'boolean',
    help: 'the OData feed may take it in the URL as api_key (Power BI: make it read-only, expiring and narrow)',
  },
} as const;

export const tokenCreateCommand = defineCommand({
  name: 'token create',
  synopsis:
    '--db D --workspace W --role staff|worker|billing_entity [--worker ID] [--supplier ID] --scopes a,b [--expires ISO] [--in-url]',
  summary: SUMMARIES['token create'],
  description:
    'Mints a bearer token and prints it alone on stdout (it is stored hashed: keep it).\n' +
    'A worker token needs --worker, a billing_entity token --supplier. An expiry in the\n' +
    'past makes a token that is already expired. --in-url lets the OData feed take it in\n' +
    "the URL's api_key (Power BI's Web API key, docs/bi.md); no other key is taken there.",
  flags: CREATE_FLAGS,
  run: ({ values }, config) => create(values, config),
});

export const tokenRevokeCommand = defineCommand({
  name: 'token revoke',
  synopsis: '--db D --token T',
  summary: SUMMARIES['token revoke'],
  description:
    'Revokes token T: from the next request on, every server on the database answers it 401.\n' +
    'Prints "revoked"; a token that does not exist is refused (exit 2).',
  flags: { db: DB_FLAG, token: TOKEN_FLAG },
  run: ({ values }, config) => revoke(values, config),
});

async function create(values: Values<typeof CREATE_FLAGS>, config: Config): Promise<void> {
  const workspaceId = requiredId(values.workspace, '--workspace');
  const workerId = plainIdOf(values.worker, '--worker') ?? null;
  const supplierId = plainIdOf(values.supplier, '--supplier') ?? null;
  const role = required(values.role, '--role');
  if (!isRole(role)) throw new UsageError('--role must be staff, worker or billing_entity');
  const scopes = required(values.scopes, '--scopes')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !isScope(s));
  if (scopes.length === 0 || unknown.length > 0) {
    throw new UsageError(
      `--scopes takes a comma-separated list of read:program, read:financial, read:workforce, read:pii, read:audit${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
    );
  }
  let expiresAt: string | null = null;
  if (values.expires !== undefined) {
    const ms = Date.parse(values.expires);
    if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}/.test(values.expires))
      throw new UsageError('--expires must be an ISO 8601 date or timestamp');
    expiresAt = new Date(ms).toISOString();
  }
  const store = await openDb(values.db, config);
  try {
    const token = await mintToken(
      store,
      {
        workspaceId,
        role,
        workerId,
        supplierId,
        scopes: scopes as Scope[],
        expiresAt,
        inUrl: values['in-url'] === true,
      },
      new Date(),
    );
    process.stdout.write(`${token}\n`);
  } finally {
    await store.close();
  }
}

async function revoke(values: { db?: string; token?: string }, config: Config): Promise<void> {
  const token = tokenOf(values.token, config);
  const store = await openDb(values.db, config);
  try {
    await revokeToken(store, token, new Date());
    process.stdout.write('revoked\n');
  } finally {
    await store.close();
  }
}

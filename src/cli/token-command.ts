import { mintToken, revokeToken } from '../admin/tokens.js';
import { isRole, isScope, type Scope } from '../auth/scopes.js';
import type { Config } from '../config.js';
import { openDb, parse, plainIdOf, required, requiredId, UsageError } from './args.js';

export async function tokenCommand(argv: string[], config: Config): Promise<void> {
  const [action, ...rest] = argv;
  if (action === 'create') return create(rest, config);
  if (action === 'revoke') return revoke(rest, config);
  throw new UsageError('usage: vms-read token create|revoke ...');
}

async function create(argv: string[], config: Config): Promise<void> {
  const { values } = parse(argv, {
    db: { type: 'string' },
    workspace: { type: 'string' },
    role: { type: 'string' },
    worker: { type: 'string' },
    supplier: { type: 'string' },
    scopes: { type: 'string' },
    expires: { type: 'string' },
  });
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
      `--scopes takes a comma-separated list of read:program, read:financial, read:workforce, read:pii${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
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
      },
      new Date(),
    );
    process.stdout.write(`${token}\n`);
  } finally {
    await store.close();
  }
}

async function revoke(argv: string[], config: Config): Promise<void> {
  const { values } = parse(argv, { db: { type: 'string' }, token: { type: 'string' } });
  const token = required(values.token ?? config.token, '--token');
  const store = await openDb(values.db, config);
  try {
    await revokeToken(store, token, new Date());
    process.stdout.write('revoked\n');
  } finally {
    await store.close();
  }
}

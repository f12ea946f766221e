import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { authenticate } from '../auth/authenticate.js';
import { createToken } from '../auth/tokens.js';
import type { Scope } from '../auth/scopes.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { parse, todayUtc } from './args.js';
import { seedStore } from './seed-command.js';
import { hostAndPort, listen } from './serve-command.js';

const DEMO_DB = 'data/demo.db';
const DEMO_TOKENS = 'data/demo-tokens.json';
const DEMO_WORKSPACE = 'ws_business';
const ALL_SCOPES: Scope[] = ['read:program', 'read:financial', 'read:workforce', 'read:pii'];

type DemoTokens = Record<string, string>;

/** Reuses the stored demo tokens while they still authenticate against this database. */
async function demoTokens(store: Store): Promise<DemoTokens> {
  if (existsSync(DEMO_TOKENS)) {
    const saved = JSON.parse(readFileSync(DEMO_TOKENS, 'utf8')) as DemoTokens;
    const checks = await Promise.all(
      Object.values(saved).map((t) =>
        authenticate(store, `Bearer ${t}`, new Date()).then(
          () => true,
          () => false,
        ),
      ),
    );
    if (checks.length > 0 && checks.every(Boolean)) return saved;
  }
  const now = new Date();
  const worker = await firstId(store, 'workers');
  const supplier = await firstId(store, 'suppliers');
  const tokens: DemoTokens = {
    staff: await createToken(
      store,
      { workspaceId: DEMO_WORKSPACE, role: 'staff', scopes: ALL_SCOPES },
      now,
    ),
    staffWithoutPii: await createToken(
      store,
      {
        workspaceId: DEMO_WORKSPACE,
        role: 'staff',
        scopes: ALL_SCOPES.filter((s) => s !== 'read:pii'),
      },
      now,
    ),
    worker: await createToken(
      store,
      {
        workspaceId: DEMO_WORKSPACE,
        role: 'worker',
        workerId: worker,
        scopes: ['read:workforce', 'read:pii'],
      },
      now,
    ),
    billingEntity: await createToken(
      store,
      {
        workspaceId: DEMO_WORKSPACE,
        role: 'billing_entity',
        supplierId: supplier,
        scopes: ['read:financial', 'read:program', 'read:workforce'],
      },
      now,
    ),
  };
  writeFileSync(DEMO_TOKENS, `${JSON.stringify(tokens, null, 2)}\n`, { mode: 0o600 });
  return tokens;
}

async function firstId(store: Store, table: 'workers' | 'suppliers'): Promise<string> {
  const rows = await store.listPage(
    {
      table,
      columns: ['id', 'created_at'],
      visibility: { worker: 'none', billing_entity: 'none' },
    },
    {
      workspaceId: DEMO_WORKSPACE,
      viewer: { role: 'staff', workerId: null, supplierCode: null },
      after: null,
      order: 'asc',
      limit: 1,
    },
  );
  return String(rows[0].id);
}

/** `npm start`: a seeded embedded database, demo tokens, and a running server. */
export async function demoCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, { port: { type: 'string' }, host: { type: 'string' } });
  const { host, port } = hostAndPort(values);
  const fresh = !existsSync(DEMO_DB);
  const store = await openStore(DEMO_DB, { create: true });
  if (fresh || !(await store.hasData())) {
    console.error(`Creating ${DEMO_DB} (scale small); this takes a few seconds...`);
    await seedStore(store, { scale: 'small', seed: 1, asOf: todayUtc() });
  }
  const tokens = await demoTokens(store);
  const { baseUrl } = await listen(store, host, port);
  const lines = [
    '',
    `vms-read demo is serving ${DEMO_DB} at ${baseUrl}`,
    '',
    `Demo tokens (workspace ${DEMO_WORKSPACE}; also saved in ${DEMO_TOKENS}):`,
    ...Object.entries(tokens).map(([name, token]) => `  ${name.padEnd(16)} ${token}`),
    '',
    'Try:',
    `  curl -s -H "Authorization: Bearer ${tokens.staff}" "${baseUrl}/api/v1/workers?limit=2"`,
    '',
  ];
  console.error(lines.join('\n'));
}

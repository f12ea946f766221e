import { authenticate } from '../auth/authenticate.js';
import type { Scope } from '../auth/scopes.js';
import { createToken } from '../auth/tokens.js';
import type { Store } from '../store/store.js';
import type { SeedOptions } from './seed.js';

export const DEMO_WORKSPACE = 'ws_business';
/** What the demo database is seeded with, as of the day it is made. */
export const DEMO_SEED: Omit<SeedOptions, 'asOf'> = { scale: 'small', seed: 1 };
const ALL_SCOPES: Scope[] = ['read:program', 'read:financial', 'read:workforce', 'read:pii'];

/** One token per demo role, by name. */
export type DemoTokens = Record<string, string>;

/**
 * The saved demo tokens while every one of them still authenticates against this store, else a
 * new set (`minted`), which the caller keeps for next time.
 */
export async function demoTokens(
  store: Store,
  saved: DemoTokens | null,
  now: Date,
): Promise<{ tokens: DemoTokens; minted: boolean }> {
  if (saved) {
    const checks = await Promise.all(
      Object.values(saved).map((t) =>
        authenticate(store, `Bearer ${t}`, now).then(
          () => true,
          () => false,
        ),
      ),
    );
    if (checks.length > 0 && checks.every(Boolean)) return { tokens: saved, minted: false };
  }
  return { tokens: await mintDemoTokens(store, now), minted: true };
}

async function mintDemoTokens(store: Store, now: Date): Promise<DemoTokens> {
  const worker = await firstId(store, 'workers');
  const supplier = await firstId(store, 'suppliers');
  return {
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

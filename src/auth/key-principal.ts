import type { TokenReads, TokenRow } from '../store/store.js';
import type { Principal } from './principal.js';
import { isRole, isScope, type Scope } from './scopes.js';

/**
 * What an access key may do, as a principal bound to that key (an access key's own requests), or
 * null when its role or workspace is gone. The built-in server's grants start from it (grants.ts).
 */
export async function principalOfKey(store: TokenReads, row: TokenRow): Promise<Principal | null> {
  if (!isRole(row.role)) return null;
  const supplierCode = row.supplierId
    ? await store.supplierCode(row.workspaceId, row.supplierId)
    : null;
  const workspace = await store.getWorkspace(row.workspaceId);
  if (!workspace) return null;
  return {
    tokenId: row.id,
    grant: null,
    quotaKey: row.id,
    workspaceId: row.workspaceId,
    workspace,
    expiresAt: row.expiresAt,
    inUrl: row.inUrl,
    role: row.role,
    workerId: row.role === 'worker' ? row.workerId : null,
    supplierId: row.role === 'billing_entity' ? row.supplierId : null,
    supplierCode: row.role === 'billing_entity' ? supplierCode : null,
    scopes: new Set(row.scopes.filter(isScope) as Scope[]),
  };
}

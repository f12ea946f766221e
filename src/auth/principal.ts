import type { Workspace } from '../store/store.js';
import type { Role, Scope } from './scopes.js';

/** Who is calling: an authenticated token, its workspace, role and scopes. */
export interface Principal {
  tokenId: string;
  workspaceId: string;
  /** The token's workspace (plan page size, row budget, catalog source). */
  workspace: Workspace;
  /** When the token stops working (ISO timestamp), or null. */
  expiresAt: string | null;
  role: Role;
  /** Set for worker tokens. */
  workerId: string | null;
  /** Set for billing-entity tokens: the supplier's id and its code (what `supplierRef` holds). */
  supplierId: string | null;
  supplierCode: string | null;
  scopes: ReadonlySet<Scope>;
}

/** The part of a principal that decides which records it sees. */
export type Viewer = Pick<Principal, 'role' | 'workerId' | 'supplierCode'>;

import type { Workspace } from '../store/store.js';
import type { Viewer } from '../store/visibility.js';
import type { Scope } from './scopes.js';

/** Who is calling: an authenticated token, its workspace, role and scopes. */
export interface Principal extends Viewer {
  tokenId: string;
  workspaceId: string;
  /** The token's workspace (plan page size, row budget, catalog source). */
  workspace: Workspace;
  /** When the token stops working (ISO timestamp), or null. */
  expiresAt: string | null;
  /** Set for billing-entity tokens: the supplier's id (`supplierCode` is its code). */
  supplierId: string | null;
  scopes: ReadonlySet<Scope>;
  /**
   * The store's change stamp when this principal was read (PrincipalCache): while the store
   * answers the same stamp nothing in it has changed. Absent when the store cannot tell cheaply.
   */
  changeStamp?: string;
}

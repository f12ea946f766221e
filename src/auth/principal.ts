import type { Workspace } from '../store/store.js';
import type { Viewer } from '../store/visibility.js';
import type { Scope } from './scopes.js';

/** An OAuth grant (DESIGN §4.12): who issued the token, to whom, through which client. */
export interface Grant {
  issuer: string;
  subject: string;
  /** The token's `client_id` claim, else its `azp`; null when it carries neither. */
  clientId: string | null;
  /**
   * The client's name, for clients of the built-in server (its registered `client_name`): what the
   * access trail shows beside the id (DESIGN §4.17). Text the client wrote; never part of the id.
   */
  clientName?: string;
}

/** Who is calling: an authenticated token, its workspace, role and scopes. */
export interface Principal extends Viewer {
  /**
   * What cursors, the quota and cached answers are bound to: an access key's id (`tok_…`), or an
   * OAuth grant's (`grant_…`, grants.ts), the same for every token of that grant.
   */
  tokenId: string;
  /** Set when the caller presented an OAuth access token; null for an access key. */
  grant: Grant | null;
  /**
   * The quota's budget (DESIGN §4.16): one per subject, whatever the client. An access key's id
   * for the key and every grant made with it; a digest of (issuer, subject) for an external
   * issuer's grants.
   */
  quotaKey: string;
  /**
   * The scopes the subject could ever hold, when known: an access key's (the built-in server's
   * grants are bounded by them). A grant asked for a scope outside it gets a plain refusal, not a
   * step-up challenge (canStepUp). Unknown (undefined) for an external issuer.
   */
  scopeCeiling?: ReadonlySet<Scope>;
  workspaceId: string;
  /**
   * An access key minted with `token create --in-url`: the OData feed takes it in the URL
   * (`api_key`, DESIGN §4.18). No other credential may come that way.
   */
  inUrl?: boolean;
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

/**
 * Whether a missing scope is a step-up (DESIGN §4.12, §4.16): the caller holds an OAuth grant, and
 * its subject could be given the scope by asking again.
 */
export function canStepUp(principal: Principal, scope: Scope): boolean {
  return principal.grant !== null && (principal.scopeCeiling?.has(scope) ?? true);
}

import type { TObject, TSchema } from 'typebox';
import type { Principal } from '../auth/principal.js';
import type { Scope } from '../auth/scopes.js';
import type { CursorCodec } from '../paging/cursor.js';
import type { CatalogCache } from './catalog-cache.js';
import type { Store, Workspace } from '../store/store.js';
import type { ReportGate } from './report-gate.js';

/** What an operation's handler may use: nothing transport-specific. */
export interface OperationContext {
  store: Store;
  principal: Principal;
  workspace: Workspace;
  cursors: CursorCodec;
  now: () => Date;
  catalogs: CatalogCache;
  /** Admission of report queries (bounded concurrency and waiting). */
  reports: ReportGate;
  /** When a report must have answered (a monotonicNow() instant): receipt plus the time limit. */
  reportDeadline: number;
}

/**
 * An operation, defined once. The HTTP routes, the MCP tools and the tests all walk the
 * registry of these; none of them knows a particular operation.
 */
export interface Operation<Input = never> {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  scope: Scope;
  /** Report operations: worker and billing-entity tokens get 403 `forbidden`. */
  staffOnly: boolean;
  /** Runs report queries: bounded by the report time limit rather than the store's answer time. */
  runsReports?: boolean;
  /** Written for a model choosing a tool: what it returns, its scope, how paging works. */
  description: string;
  /** Query parameters (GET) or JSON body (POST). */
  input: TObject;
  /** The `data` member of the success envelope, refusal shapes included. */
  output: TSchema;
  /** Rules beyond the schema (DESIGN §4.2); false answers 404 `not_found` like a schema mismatch. */
  refine?(input: Input): boolean;
  run(context: OperationContext, input: Input): Promise<unknown>;
}

// The registry holds operations of many input types; the executor validates input before `run`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation = Operation<any>;

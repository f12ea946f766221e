import type { Static, TNever, TObject, TSchema } from 'typebox';
import { Type } from 'typebox';
import type { Principal } from '../auth/principal.js';
import type { Scope } from '../auth/scopes.js';
import type { ReportMetrics } from '../metrics/service-metrics.js';
import type { CursorCodec } from '../paging/cursor.js';
import type {
  AuditTrailStore,
  ReportFacts,
  ResourceReads,
  Row,
  Workspace,
} from '../store/store.js';
import type { FeedType } from '../store/sql/change-log.js';
import type { CatalogCache } from './catalog-cache.js';
import type { ReportGate } from './report-gate.js';
import type { ResultCache } from './result-cache.js';
import type { Revelation } from './revelation.js';

/**
 * What a plain parameter names (DESIGN §4.17): a record of a type, a saved query, the subject of
 * an approval (a timesheet or an expense), an OAuth client, an operation, or a code of an open set
 * (an assignment's status). The access trail keeps a value that names one as it is, and any other
 * as its length: it is then text a person typed.
 */
export type IdKind =
  FeedType | 'saved_query' | 'approval_subject' | 'client' | 'operation' | 'code';

/** What an operation's handler may use: nothing transport-specific. */
export interface OperationContext {
  store: ResourceReads & AuditTrailStore;
  /** The report facts and the catalog's inputs: the columnar copy by default (ColumnarReports). */
  facts: ReportFacts;
  /** Results of report queries already run, by engine, data stamp and SQL. */
  reportResults: ResultCache<Row[]>;
  principal: Principal;
  workspace: Workspace;
  cursors: CursorCodec;
  now: () => Date;
  catalogs: CatalogCache;
  /** Admission of report queries (bounded concurrency and waiting). */
  reports: ReportGate;
  /** When a report must have answered (a monotonicNow() instant): receipt plus the time limit. */
  reportDeadline: number;
  /** Where report durations go when metrics are on (VMS_READ_METRICS); absent when off. */
  metrics?: ReportMetrics;
}

/**
 * An operation, defined once. The HTTP routes, the MCP tools and the tests all walk the
 * registry of these; none of them knows a particular operation. The handler's parameters and
 * result are the static types of its schemas: `input` (query parameters or JSON body), `output`
 * (the `data` of a success) and `refusal` (the `data` of a refusal, when it can refuse).
 */
export interface Operation<
  I extends TObject = TObject,
  O extends TSchema = TSchema,
  R extends TSchema = TNever,
> {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** The scope a token needs; null: any valid token (what it shows may still depend on scopes). */
  scope: Scope | null;
  /** Report operations: worker and billing-entity tokens get 403 `forbidden`. */
  staffOnly: boolean;
  /** Runs report queries: bounded by the report time limit rather than the store's answer time. */
  runsReports?: boolean;
  /**
   * Its answer depends only on the store's contents, the token, the input and today's date: the
   * executor may answer a repeat from its cache while the store has not changed.
   */
  cacheable?: boolean;
  /** A short human name (the MCP tool's `title`, e.g. "List workers"). */
  title: string;
  /**
   * Written for a model choosing a tool: when to use it, what it returns, its scope, how paging
   * works.
   */
  description: string;
  input: I;
  output: O;
  /** The refusals it may answer with (`status: refused`), if any. */
  refusal?: R;
  /**
   * Rules beyond the schema (DESIGN §4.2): the rule the input breaks, as the sentence a 404
   * `not_found` carries (naming members, never echoing values), or null when it keeps them all.
   */
  refine?(input: Static<I>): string | null;
  /**
   * Its parameters that are ids, and of what: the access trail keeps such a value only when it
   * names one (every other text parameter that is not enumerated, a date or a number is kept as
   * its length, DESIGN §4.17).
   */
  idParams?: Readonly<Record<string, IdKind>>;
  run(context: OperationContext, input: Static<I>): Promise<Static<O> | Static<R>>;
  /**
   * What an answer carried (revelation.ts), for the access trail: the records it served, or a
   * report's query and rows; nothing when absent.
   */
  reveals?(input: Static<I>, data: Static<O> | Static<R>): Revelation;
}

/** Defines an operation; TypeScript infers the handler's input and result from the schemas. */
export function defineOperation<I extends TObject, O extends TSchema, R extends TSchema = TNever>(
  operation: Operation<I, O, R>,
): Operation<I, O, R> {
  return operation;
}

// The registry holds operations of many types; the executor validates input before `run`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation = Operation<any, any, any>;

/** The schema of everything `data` can be: the success, or one of the refusals. */
export function dataSchema(operation: AnyOperation): TSchema {
  return operation.refusal ? Type.Union([operation.output, operation.refusal]) : operation.output;
}

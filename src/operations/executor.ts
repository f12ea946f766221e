import type { AccessTokenVerifier } from '../auth/access-tokens.js';
import type { AnsweredRequest, AnswerSink, Seen } from './answered.js';
import type { OwnTokens } from '../auth/own-tokens.js';
import { ADDRESS_BOUNDS, AddressWindows } from '../address-bounds.js';
import { PrincipalCache } from '../auth/principal-cache.js';
import { canStepUp, type Principal } from '../auth/principal.js';
import type { Scope } from '../auth/scopes.js';
import type { Quota } from '../auth/quota.js';
import { monotonicNow, withDeadline } from '../deadline.js';
import {
  ApiError,
  InsufficientScopeError,
  ReportTimeoutError,
  StoreUnavailableError,
} from '../errors.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { CursorCodec } from '../paging/cursor.js';
import type { CatalogCache } from './catalog-cache.js';
import type { Catalog } from '../semantic/catalog.js';
import type {
  AuditTrailStore,
  ReportFacts,
  ResourceReads,
  Row,
  TokenReads,
  Workspace,
} from '../store/store.js';
import type { AnyOperation } from './operation.js';
import { typedQuery } from './query-string.js';
import { validatorOf } from '../schema-check.js';
import { violationMessage } from './strictness.js';
import type { ReportGate } from './report-gate.js';
import type { ResultCache } from './result-cache.js';
import type { StoreTurns } from './store-turns.js';

export interface ExecutorDeps {
  store: TokenReads & ResourceReads & AuditTrailStore;
  /** Wrong credentials allowed a minute per address (VMS_READ_AUTH_FAILURES_PER_MINUTE, default 20); 0: off. */
  authFailuresPerMinute?: number;
  /** What reports read: the columnar copy (ColumnarReports) or the row store itself. */
  facts: ReportFacts;
  reportResults: ResultCache<Row[]>;
  /** Answers of cacheable operations, by the store's change stamp, token, operation and input. */
  readResults: ResultCache<unknown>;
  cursors: CursorCodec;
  quota: Quota;
  now: () => Date;
  catalogs: CatalogCache;
  /** Time limit of a report request, from its receipt to its answer. */
  reportTimeoutMs: number;
  /** How long any other request may wait on the store before it is answered 503 (DESIGN §4.1). */
  storeTimeoutMs: number;
  /** Admission of report queries: bounded concurrency and waiting. */
  reports: ReportGate;
  /**
   * Turns at the store for the other operations, shared between clients (store-turns.ts); absent
   * where the store's reads wait for nothing (SQLite's are synchronous).
   */
  storeTurns?: StoreTurns;
  /** Prometheus metrics (VMS_READ_METRICS=1); absent when off, and then nothing is counted. */
  metrics?: ServiceMetrics;
  /** Checks OAuth access tokens of the configured issuers; absent, only access keys are accepted. */
  accessTokens?: AccessTokenVerifier;
  /** The built-in authorization server's access tokens; absent when it is off. */
  ownTokens?: OwnTokens;
  /** Where answered requests go (the access trail, DESIGN §4.17); absent when it is off. */
  answers?: AnswerSink;
}

/** How a request reached the executor. */
export interface Arrival {
  /** Query parameters (text, typed by the schema) rather than JSON. */
  fromQueryString: boolean;
  /** When the request was received (monotonicNow()); deadlines count from here. */
  receivedAt: number;
  /** Filled with the input as accepted and the data answered, for the access trail. */
  seen?: Seen;
}

/** Counts an answer that is a refusal (`status: refused`) by its code, and passes it on. */
async function countRefusal(
  metrics: ServiceMetrics,
  operation: string,
  answer: Promise<unknown>,
): Promise<unknown> {
  const data = await answer;
  const { status, code } = data as { status?: unknown; code?: unknown };
  if (status === 'refused' && typeof code === 'string') metrics.refused(operation, code);
  return data;
}

/**
 * 403 for a missing scope (DESIGN §4.1, §4.12, §4.16). The challenge names the scope to ask for:
 * for a step-up (an OAuth grant whose subject could hold the scope) the scopes it holds plus that
 * one, so a client that steps up asks for all it needs at once (HTTP adds `resource_metadata`
 * then); otherwise (an access key, or a scope the subject can never hold) the one needed, a plain
 * refusal.
 */
export function insufficientScope(principal: Principal, needed: Scope): InsufficientScopeError {
  const stepUp = canStepUp(principal, needed);
  const scope = stepUp ? [...new Set([...principal.scopes, needed])].join(' ') : needed;
  return new InsufficientScopeError(stepUp, {
    'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"`,
  });
}

/**
 * Who a cached answer was computed for, when the caller holds an OAuth token: tokens of one grant
 * share its id but may differ in scopes (a step-up) or in what their claims map to.
 */
function grantAnswerKey(principal: Principal): string {
  let key = GRANT_ANSWER_KEYS.get(principal);
  if (key === undefined) {
    const { tokenId, workspaceId, role, workerId, supplierId, scopes } = principal;
    key = JSON.stringify([tokenId, workspaceId, role, workerId, supplierId, [...scopes].sort()]);
    GRANT_ANSWER_KEYS.set(principal, key);
  }
  return key;
}
/** Each principal's key, written once: a cached principal serves many requests. */
const GRANT_ANSWER_KEYS = new WeakMap<Principal, string>();

const storeLate = () => new StoreUnavailableError('the store did not answer in time');
const reportLate = () => new ReportTimeoutError();

/**
 * The one path to the data, shared by HTTP and MCP, in DESIGN §4.1's order:
 * authentication (401) → quota (429) → strictness (404) → scope and role (403) → operation.
 * Every step that waits on the store is bounded from the request's receipt: the store's answer
 * time for ordinary requests, the report time limit for reports.
 */
export class Executor {
  private readonly principals: PrincipalCache;
  /** Failed authentications per address, shared with the built-in server's endpoints. */
  readonly failures: AddressWindows;

  constructor(readonly deps: ExecutorDeps) {
    this.principals = new PrincipalCache({
      accessTokens: deps.accessTokens,
      ownTokens: deps.ownTokens,
    });
    this.failures = new AddressWindows(
      'failedAuthentications',
      deps.authFailuresPerMinute ?? ADDRESS_BOUNDS.failedAuthentications.limit,
      (bound) => deps.metrics?.addressRefused(bound),
    );
  }

  /** Compiles every operation's input validator now, so no request pays for it (start-up). */
  prepare(operations: readonly AnyOperation[]): void {
    for (const operation of operations) validatorOf(operation.input);
  }

  /**
   * The principal of an Authorization header, or 401. With the client's `address` (HTTP), wrong
   * credentials are counted per address (DESIGN §4.16): a request without any is discovery and
   * never counts; a correct credential is always accepted; a wrong one from an address past
   * VMS_READ_AUTH_FAILURES_PER_MINUTE gets 429 with Retry-After (its connection closed) instead
   * of 401. The check a wrong credential costs is a hash and an indexed read, or a signature.
   */
  async authenticate(
    authorization: string | undefined,
    receivedAt = monotonicNow(),
    address?: string,
  ): Promise<Principal> {
    const { store, now, storeTimeoutMs } = this.deps;
    const at = now();
    try {
      return await withDeadline(
        this.principals.resolve(store, authorization, at),
        receivedAt + storeTimeoutMs - monotonicNow(),
        storeLate,
      );
    } catch (error) {
      const wrong = error instanceof ApiError && error.code === 'unauthorized';
      if (address === undefined || authorization === undefined || !wrong) throw error;
      const wait = await this.failures.waitFor(address);
      if (wait === 0) {
        await this.failures.count(address);
        throw error;
      }
      throw new ApiError(
        'rate_limited',
        { 'retry-after': String(wait), connection: 'close' },
        'Too many failed authentications from this address; retry after Retry-After seconds.',
      );
    }
  }

  /** The workspace's report catalog, as a request of it reads it. */
  async catalogOf(workspace: Workspace): Promise<Catalog> {
    return (await this.deps.catalogs.get(this.deps.facts, workspace)).catalog;
  }

  /**
   * Runs an operation for the server itself (the start-up warm-up, warm-up.ts): validated and
   * run as a request would be, with no token, quota or answer cache.
   */
  runInProcess(operation: AnyOperation, principal: Principal, input: unknown): Promise<unknown> {
    const arrival = { fromQueryString: false, receivedAt: monotonicNow() };
    this.checkStrictness(operation, input, arrival);
    return this.execute(operation, principal, input, arrival);
  }

  /**
   * Whether a request of `operation` received at `receivedAt` is out of time already: past the
   * report time limit for a report, the store's answer time for any other.
   */
  outOfTime(operation: AnyOperation, receivedAt: number): boolean {
    const { reportTimeoutMs, storeTimeoutMs } = this.deps;
    const limit = operation.runsReports ? reportTimeoutMs : storeTimeoutMs;
    return monotonicNow() >= receivedAt + limit;
  }

  /** Counts one request against the token's quota; rejects with 429 when it is spent. */
  async admit(principal: Principal): Promise<void> {
    const wait = await this.deps.quota.take(principal.quotaKey, this.deps.now().getTime());
    if (wait > 0) throw new ApiError('rate_limited', { 'retry-after': String(wait) });
  }

  /**
   * A transport's answered request (every REST answer of an operation's route or `/mcp`, every
   * tool call), handed to the access trail as data; nothing when the trail is off.
   */
  answered(request: AnsweredRequest): void {
    this.deps.answers?.answered(request);
  }

  /** Releases what the executor holds beyond the store: the shared quota's Redis connection. */
  async close(): Promise<void> {
    await this.deps.quota.close?.();
  }

  /** Validates and runs an operation for an authenticated, admitted principal. */
  async run(
    operation: AnyOperation,
    principal: Principal,
    rawInput: unknown,
    arrival: Arrival,
  ): Promise<unknown> {
    const input = arrival.fromQueryString
      ? typedQuery(operation.input, rawInput as Record<string, unknown>)
      : rawInput;
    this.checkStrictness(operation, input, arrival);
    if (arrival.seen) arrival.seen.input = input;
    if (operation.scope !== null && !principal.scopes.has(operation.scope))
      throw insufficientScope(principal, operation.scope);
    if (operation.staffOnly && principal.role !== 'staff') throw new ApiError('forbidden');
    let answer = this.answer(operation, principal, input, arrival);
    const { seen } = arrival;
    if (seen) answer = answer.then((data) => (seen.data = data));
    const { metrics } = this.deps;
    return metrics && operation.refusal ? countRefusal(metrics, operation.name, answer) : answer;
  }

  /** Runs the operation, or answers a repeat from the cache. */
  private answer(
    operation: AnyOperation,
    principal: Principal,
    input: unknown,
    arrival: Arrival,
  ): Promise<unknown> {
    if (!operation.cacheable || principal.changeStamp === undefined)
      return this.execute(operation, principal, input, arrival);
    // Nothing in the store has changed since `changeStamp`, and the answer depends on nothing but
    // the store, the token, the input and today's date (reports resolve relative periods from
    // it): a repeat is a lookup.
    const today = this.deps.now().toISOString().slice(0, 10);
    const key = JSON.stringify([
      principal.changeStamp,
      principal.grant === null ? principal.tokenId : grantAnswerKey(principal),
      operation.name,
      today,
      input,
    ]);
    return this.deps.readResults.get(key, () => this.execute(operation, principal, input, arrival));
  }

  /** DESIGN §4.2: input that breaks the schema or a rule beyond it is 404, saying which rule. */
  private checkStrictness(operation: AnyOperation, input: unknown, arrival: Arrival): void {
    const validate = validatorOf(operation.input);
    const broken = !validate(input)
      ? violationMessage(validate.errors ?? [], {
          form: operation.method === 'GET' ? 'parameters' : 'body',
          queryString: arrival.fromQueryString,
        })
      : (operation.refine?.(input) ?? null);
    if (broken !== null) throw new ApiError('not_found', {}, broken);
  }

  private execute(
    operation: AnyOperation,
    principal: Principal,
    input: unknown,
    arrival: Arrival,
  ): Promise<unknown> {
    const { store, facts, reportResults, cursors, now, catalogs, reports, metrics } = this.deps;
    const { reportTimeoutMs, storeTimeoutMs } = this.deps;
    const reportDeadline = arrival.receivedAt + reportTimeoutMs;
    const deadline = operation.runsReports ? reportDeadline : arrival.receivedAt + storeTimeoutMs;
    const late = operation.runsReports ? reportLate : storeLate;
    // Out of time before it starts (it waited behind others for the event loop): refused without
    // the work, which would only be thrown away (issue 56).
    if (this.outOfTime(operation, arrival.receivedAt)) return Promise.reject(late());
    const run = () =>
      operation.run(
        {
          store,
          facts,
          reportResults,
          principal,
          workspace: principal.workspace,
          cursors,
          now,
          catalogs,
          reports,
          reportDeadline,
          metrics,
        },
        input,
      );
    const turns = this.deps.storeTurns;
    // Reports have their own admission (the report gate); the other operations take a turn at
    // the store, each client in turn (store-turns.ts).
    const answer =
      turns && !operation.runsReports ? turns.run(principal.quotaKey, deadline, late, run) : run();
    return withDeadline(answer, deadline - monotonicNow(), late);
  }
}

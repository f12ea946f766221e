/**
 * The one table of errors: each reason's HTTP status, the code on the wire (the reason itself
 * unless `code` says otherwise) and the plain text the service writes. A message never echoes
 * request input (DESIGN §4.1).
 */
export const ERRORS = {
  bad_request: { status: 400, message: 'The HTTP request is malformed.' },
  unauthorized: { status: 401, message: 'A valid bearer token is required.' },
  insufficient_scope: { status: 403, message: 'The token lacks the scope this operation needs.' },
  forbidden: { status: 403, message: 'This operation is not available to this token role.' },
  // DNS rebinding and cross-site calls to /mcp (DESIGN §4.10): a 403 that says why.
  origin_refused: {
    status: 403,
    code: 'forbidden',
    message: 'Requests from this browser origin or to this host name are not accepted here.',
  },
  not_found: {
    status: 404,
    message: 'No such resource, or the request does not match its schema.',
  },
  method_not_allowed: { status: 405, message: 'This method is not allowed here.' },
  // The OData feed (DESIGN §4.18): a cursor ($skiptoken, deltaLink) of another token or query.
  invalid_cursor: {
    status: 400,
    message:
      'The $skiptoken or $deltatoken was issued to another token or for another query; start again without it.',
    odataOnly: true,
  },
  // The OData feed: a $deltatoken from before tombstones it would need were removed (DESIGN §4.13).
  cursor_expired: {
    status: 410,
    message: 'The changes this $deltatoken follows are no longer kept; read the set again.',
    odataOnly: true,
  },
  // The OData feed: a query option, function or operator OData defines that it does not offer.
  not_implemented: {
    status: 501,
    message: 'This OData feature is not offered by this service.',
    odataOnly: true,
  },
  request_timeout: { status: 408, message: 'The request was not received in time.' },
  payload_too_large: { status: 413, message: 'The request body is larger than 1 MiB.' },
  rate_limited: { status: 429, message: 'The request quota for this token is spent; retry later.' },
  header_too_large: { status: 431, message: 'The request headers are too large.' },
  internal: { status: 500, message: 'An internal error occurred.' },
  unavailable: { status: 503, message: 'The data store is unavailable; retry later.' },
  report_capacity: {
    status: 503,
    code: 'unavailable',
    message: 'Report capacity is exhausted for the moment; retry later.',
  },
  unread_answers: {
    status: 429,
    code: 'rate_limited',
    message:
      'This client holds too many answers it has not read, or too many requests waiting on one another; read them, then retry.',
  },
  answers_backlog: {
    status: 503,
    code: 'unavailable',
    message: 'Answers their clients have not read fill this instance for the moment; retry later.',
  },
  shutting_down: {
    status: 503,
    code: 'unavailable',
    message: 'This server instance is shutting down; retry on another or later.',
  },
  query_timeout: {
    status: 503,
    message:
      'The report query ran past its time limit; narrow it (time range, filters, dimensions) and retry.',
  },
} as const satisfies Record<
  string,
  { status: number; message: string; code?: string; odataOnly?: true }
>;

/** Whether only the OData feed answers with this reason (the REST API's OpenAPI document omits it). */
export function isODataOnly(reason: ErrorCode): boolean {
  return (ERRORS[reason] as { odataOnly?: true }).odataOnly === true;
}

/** A reason in the table; the code a client sees is `wireCode(reason)`. */
export type ErrorCode = keyof typeof ERRORS;

export function wireCode(reason: ErrorCode): string {
  const entry: { status: number; code?: string } = ERRORS[reason];
  return entry.code ?? reason;
}

/**
 * An error answered with a non-200 status and the body `{error: {code, message}, request_id}`.
 * `message` replaces the table's text where the service can say more (a strictness 404 names
 * the parameter and the rule it broke); it is written by the service, never request input.
 */
export class ApiError extends Error {
  readonly status: number;
  /** The part of the request the error is about (an OData query option: `error.target`). */
  target?: string;
  constructor(
    readonly code: ErrorCode,
    readonly headers: Record<string, string> = {},
    message: string = ERRORS[code].message,
    /** Why, for the log at debug level only (a refused token's reason); never sent. */
    readonly detail?: string,
  ) {
    super(message);
    this.status = ERRORS[code].status;
  }
}

/**
 * 403 `insufficient_scope` (DESIGN §4.1, §4.12): `stepUp` when the caller's grant could be given
 * the scope by asking again (HTTP then points the challenge at the resource metadata, and /mcp
 * refuses the request itself); false when it never can (an access key, or a grant whose subject
 * does not hold the scope), a plain refusal that no client should ask again for.
 */
export class InsufficientScopeError extends ApiError {
  constructor(
    readonly stepUp: boolean,
    headers: Record<string, string>,
  ) {
    super('insufficient_scope', headers);
  }
}

export function errorBody(
  reason: ErrorCode,
  requestId: string,
  message: string = ERRORS[reason].message,
  target?: string,
): { error: { code: string; message: string; target?: string }; request_id: string } {
  return {
    error:
      target === undefined
        ? { code: wireCode(reason), message }
        : { code: wireCode(reason), message, target },
    request_id: requestId,
  };
}

/** Raised by a store when the database cannot be reached; answered 503. */
export class StoreUnavailableError extends Error {}

/**
 * A write that would have had to wait for another process's write (SQLite's lock, held by an
 * import) and was not made: the caller tries again later (the webhook delivery's next round).
 */
export class StoreBusyError extends Error {}

/** A report query ran past its time limit and was abandoned; answered 503 `query_timeout`. */
export class ReportTimeoutError extends Error {
  constructor() {
    super('report query exceeded its time limit');
  }
}

/**
 * A report engine that is not the records' own (the columnar copy) failed a query for its own
 * reasons (out of memory, a damaged file): the query is answered by the row store instead. Never
 * an answer by itself; if it escapes, it is a 503, not a 500.
 */
export class ReportEngineFailedError extends Error {
  constructor(
    readonly engine: string,
    cause: unknown,
  ) {
    super(`${engine} failed a report query: ${(cause as Error)?.message ?? String(cause)}`, {
      cause,
    });
  }
}

/** The documented code for any error an operation can raise (HTTP and MCP share this). */
export function errorCodeOf(error: unknown): ErrorCode {
  if (error instanceof ApiError) return error.code;
  if (error instanceof ReportTimeoutError) return 'query_timeout';
  if (error instanceof StoreUnavailableError) return 'unavailable';
  if (error instanceof ReportEngineFailedError) return 'unavailable';
  return 'internal';
}

/** A logger that takes a failure: pino's (Fastify's `request.log` included) fits. */
export interface ErrorLogger {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** How one error is answered, and whether it is logged. */
export interface ErrorOutcome {
  reason: ErrorCode;
  status: number;
  /** retry-after on a 503, then the ApiError's own headers (which win). */
  headers: Record<string, string>;
  body: ReturnType<typeof errorBody>;
  /** 500 is our fault: error; another 5xx (store out of reach, time limit, capacity): warn; 4xx: none. */
  log: 'error' | 'warn' | null;
}

/**
 * The one error policy of HTTP and MCP: the reason (`errorCodeOf` unless the transport knows
 * better), its status and headers, the body with no stack or SQL, and the log level.
 */
export function errorOutcome(
  error: unknown,
  requestId: string,
  reason: ErrorCode = errorCodeOf(error),
): ErrorOutcome {
  const { status } = ERRORS[reason];
  const headers: Record<string, string> = status === 503 ? { 'retry-after': '1' } : {};
  if (error instanceof ApiError) Object.assign(headers, error.headers);
  const log = status < 500 ? null : status === 500 ? 'error' : 'warn';
  // An ApiError of this very reason may carry its own text; any other error gets the table's.
  const own = error instanceof ApiError && error.code === reason;
  const message = own ? error.message : undefined;
  const target = own ? error.target : undefined;
  return { reason, status, headers, body: errorBody(reason, requestId, message, target), log };
}

/** Logs `error` as its outcome says (the reason as the message), with `fields` beside it. */
export function logErrorOutcome(
  logger: ErrorLogger,
  outcome: ErrorOutcome,
  error: unknown,
  fields: object = {},
): void {
  if (outcome.log) logger[outcome.log]({ err: error, ...fields }, outcome.reason);
}

/** The one table of error codes, their HTTP statuses and the plain text the service writes. */
export const ERRORS = {
  unauthorized: { status: 401, message: 'A valid bearer token is required.' },
  insufficient_scope: { status: 403, message: 'The token lacks the scope this operation needs.' },
  forbidden: { status: 403, message: 'This operation is not available to this token role.' },
  not_found: {
    status: 404,
    message: 'No such resource, or the request does not match its schema.',
  },
  method_not_allowed: { status: 405, message: 'This method is not allowed here.' },
  rate_limited: { status: 429, message: 'The request quota for this token is spent; retry later.' },
  internal: { status: 500, message: 'An internal error occurred.' },
  unavailable: { status: 503, message: 'The data store is unavailable; retry later.' },
  query_timeout: {
    status: 503,
    message:
      'The report query ran past its time limit; narrow it (time range, filters, dimensions) and retry.',
  },
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** An error answered with a non-200 status and the body `{error: {code, message}, request_id}`. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly headers: Record<string, string> = {},
  ) {
    super(ERRORS[code].message);
    this.status = ERRORS[code].status;
  }
}

export function errorBody(code: ErrorCode, requestId: string) {
  return { error: { code, message: ERRORS[code].message }, request_id: requestId };
}

/** Raised by a store when the database cannot be reached; answered 503. */
export class StoreUnavailableError extends Error {}

/** A report query ran past its time limit and was abandoned; answered 503 `query_timeout`. */
export class ReportTimeoutError extends Error {
  constructor() {
    super('report query exceeded its time limit');
  }
}

/** The documented code for any error an operation can raise (HTTP and MCP share this). */
export function errorCodeOf(error: unknown): ErrorCode {
  if (error instanceof ApiError) return error.code;
  if (error instanceof ReportTimeoutError) return 'query_timeout';
  if (error instanceof StoreUnavailableError) return 'unavailable';
  return 'internal';
}

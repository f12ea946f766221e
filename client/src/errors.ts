import type { components } from './schema.js';

/** The body of every non-200 answer (the document's `Error` schema). */
export type ErrorBody = components['schemas']['Error'];
export type ErrorCode = ErrorBody['error']['code'];

/**
 * A non-200 answer: its status, its code from the closed set, the service's message, the request
 * id (to quote to the operator: it is in the server's log), and Retry-After in seconds if sent.
 */
export class VmsReadError extends Error {
  readonly code: ErrorCode;
  readonly requestId: string;
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly retryAfterSeconds: number | null,
  ) {
    super(`${status} ${body.error.code}: ${body.error.message}`);
    this.name = 'VmsReadError';
    this.code = body.error.code;
    this.requestId = body.request_id;
  }
}

/** What a refusal carries: a code, a message (a provenance object), and for reports more. */
export interface RefusalData {
  status: 'refused';
  code: string;
  message: { value: string };
}

/**
 * A refusal met while iterating (a query the catalog cannot answer): the answer is a normal
 * 200, but an iterator has no rows to give, so it throws this with the refusal as it came.
 */
export class VmsReadRefusal<R extends RefusalData = RefusalData> extends Error {
  readonly code: string;
  constructor(readonly refusal: R) {
    super(`refused ${refusal.code}: ${refusal.message.value}`);
    this.name = 'VmsReadRefusal';
    this.code = refusal.code;
  }
}

export function isRefusal<T>(data: T): data is Extract<T, { status: 'refused' }> {
  return (data as { status?: unknown }).status === 'refused';
}

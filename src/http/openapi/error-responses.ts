import { ERRORS, isODataOnly, wireCode, type ErrorCode } from '../../errors.js';
import type { AnyOperation } from '../../operations/operation.js';

/**
 * The error answers of the OpenAPI document, from the one table of errors (src/errors.ts): for
 * each HTTP status an operation can answer, the codes it carries there and their messages.
 */

/** The reasons any operation can meet, by the situation that brings them. */
function reasonsOf(operation: AnyOperation): ErrorCode[] {
  const reasons: ErrorCode[] = [
    'bad_request',
    'unauthorized',
    'not_found',
    'request_timeout',
    'rate_limited',
    'header_too_large',
    'internal',
    'unavailable',
    'shutting_down',
  ];
  if (operation.scope !== null) reasons.push('insufficient_scope');
  if (operation.staffOnly) reasons.push('forbidden');
  if (operation.method === 'POST') reasons.push('payload_too_large');
  if (operation.runsReports) reasons.push('report_capacity', 'query_timeout');
  return reasons;
}

/** Statuses whose answer carries Retry-After (seconds). */
const RETRY_STATUSES = new Set([429, 503]);

/** The component name of an error answer by status, e.g. `Error404`. */
export const errorResponseName = (status: number) => `Error${status}`;

/** The statuses an operation can answer besides 200, in order. */
export function errorStatusesOf(operation: AnyOperation): number[] {
  return [...new Set(reasonsOf(operation).map((r) => ERRORS[r].status))].sort((a, b) => a - b);
}

const RETRY_AFTER = {
  description: 'Seconds to wait before retrying.',
  schema: { type: 'integer', minimum: 1 },
};

export const REQUEST_ID_HEADER = {
  description: 'The request id, also in the body as request_id and in the server log.',
  schema: { type: 'string' },
};

/**
 * One `components.responses` entry per status the operations can answer: its codes (an enum)
 * and what each means.
 */
export function errorResponses(operations: readonly AnyOperation[]): Record<string, unknown> {
  const reasons = new Set(operations.flatMap(reasonsOf));
  const byStatus = new Map<number, ErrorCode[]>();
  for (const reason of reasons) {
    const { status } = ERRORS[reason];
    byStatus.set(status, [...(byStatus.get(status) ?? []), reason]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, reasons] of [...byStatus].sort(([a], [b]) => a - b)) {
    const codes = [...new Set(reasons.map(wireCode))];
    const lines = reasons.map((r) => `- \`${wireCode(r)}\`: ${ERRORS[r].message}`);
    responses[errorResponseName(status)] = {
      description: `Error ${status}, with one of these codes:\n\n${lines.join('\n')}`,
      headers: {
        'x-request-id': REQUEST_ID_HEADER,
        ...(RETRY_STATUSES.has(status) ? { 'Retry-After': RETRY_AFTER } : {}),
      },
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          example: {
            error: { code: codes[0], message: ERRORS[reasons[0]].message },
            request_id: '9b2f1d7e-3c4a-4f6b-8e2d-1a5c7b9e0f31',
          },
        },
      },
    };
  }
  return responses;
}

// The OData feed's own answers are not the REST API's (docs/bi.md lists them).
const ALL_CODES = [
  ...new Set(
    (Object.keys(ERRORS) as ErrorCode[]).filter((r) => !isODataOnly(r)).map(wireCode),
  ),
];

/** The error body every non-200 answer has (SPEC "Errors"). */
export const ERROR_SCHEMA = {
  type: 'object',
  description: 'Every non-200 answer: a code from a closed set, a plain message, the request id.',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string', enum: ALL_CODES },
        message: {
          type: 'string',
          description: 'Written by the service; never echoes request input.',
        },
      },
      required: ['code', 'message'],
      additionalProperties: false,
    },
    request_id: { type: 'string' },
  },
  required: ['error', 'request_id'],
  additionalProperties: false,
};

import fastJson from 'fast-json-stringify';
import type { AnyOperation } from '../operations/operation.js';

/**
 * Serialises the success envelope `{data, request_id}` with a serializer compiled once from the
 * operation's output schema (the answer, not its refusal schema). A refusal, rarer and small,
 * goes through JSON.stringify. Both give the same JSON text for the same value.
 */
export function envelopeSerializer(
  operation: AnyOperation,
): (data: unknown, requestId: string) => string {
  const stringify = fastJson({
    type: 'object',
    properties: {
      data: JSON.parse(JSON.stringify(operation.output)),
      request_id: { type: 'string' },
    },
    required: ['data', 'request_id'],
  });
  return (data, requestId) =>
    (data as { status?: string }).status === 'refused'
      ? JSON.stringify({ data, request_id: requestId })
      : stringify({ data, request_id: requestId });
}

import fastJson from 'fast-json-stringify';
import type { AnyOperation } from '../operations/operation.js';

/**
 * Serialises the success envelope `{data, request_id}` with a serializer compiled once from the
 * operation's output schema (the answer, not its refusal schema). A refusal, rarer and small,
 * goes through JSON.stringify. Both give the same JSON text for the same value.
 *
 * fast-json-stringify checks a value against each branch of an `anyOf` (a row's value: a number,
 * a numeric string, a provenance object) with validators it compiles on first use: 70 ms on the
 * first report answer after a start. `warmWith`, an answer of the operation (the seed's example,
 * seed-examples.json), is serialised once here, so that cost is paid at start, not by a client.
 */
const WARM_RUNS = 50;

export function envelopeSerializer(
  operation: AnyOperation,
  warmWith?: unknown,
): (data: unknown, requestId: string) => string {
  const stringify = fastJson({
    type: 'object',
    properties: {
      data: JSON.parse(JSON.stringify(operation.output)),
      request_id: { type: 'string' },
    },
    required: ['data', 'request_id'],
  });
  const serialize = (data: unknown, requestId: string) =>
    (data as { status?: string }).status === 'refused'
      ? JSON.stringify({ data, request_id: requestId })
      : stringify({ data, request_id: requestId });
  // Several times, so its code is compiled by the JIT too, not only interpreted. Best effort: an
  // example that no longer fits the schema costs the warmth, never the start.
  try {
    if (warmWith !== undefined) for (let i = 0; i < WARM_RUNS; i++) serialize(warmWith, 'warm-up');
  } catch {
    // test/http/envelope-serializer.test.ts keeps every example fitting.
  }
  return serialize;
}

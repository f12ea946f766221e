import assert from 'node:assert/strict';
import { ERRORS } from '../../src/errors.js';
import type { Answer } from './harness.js';

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * DESIGN §4.1's error body, exactly `{error: {code, message}, request_id}`, with a code of the one
 * error table (ERRORS) and a lowercase UUID v4; also what an MCP tool error carries as its text.
 */
export function assertErrorBody(body: unknown): asserts body is {
  error: { code: keyof typeof ERRORS; message: string };
  request_id: string;
} {
  assert.ok(body !== null && typeof body === 'object' && !Array.isArray(body), String(body));
  const { error, request_id } = body as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'request_id']);
  assert.ok(error !== null && typeof error === 'object', JSON.stringify(body));
  assert.deepEqual(Object.keys(error).sort(), ['code', 'message']);
  const { code, message } = error as Record<string, unknown>;
  assert.ok(typeof code === 'string' && Object.hasOwn(ERRORS, code), `code ${String(code)}`);
  assert.equal(typeof message, 'string');
  assert.match(String(request_id), UUID_V4);
}

/** An error answer: the body above, its code's status, and the same id in `x-request-id`. */
export function assertErrorAnswer(answer: Answer) {
  assertErrorBody(answer.body);
  assert.equal(answer.status, ERRORS[answer.body.error.code].status, answer.raw);
  assert.equal(answer.headers['x-request-id'], answer.body.request_id);
}

/** DESIGN §4.1: `{error: {code, message}, request_id}` and the same id in `x-request-id`. */
export function assertError(answer: Answer, status: number, code: string) {
  assert.equal(answer.status, status, answer.raw);
  assertErrorAnswer(answer);
  assert.equal(answer.body.error.code, code);
}

/** A refusal (HTTP 200): status, code and a `$.message` envelope; report refusals add two members. */
export function assertRefusal(answer: Answer, code: string, operationId: string, report: boolean) {
  assert.equal(answer.status, 200, answer.raw);
  const data = answer.body.data;
  assert.equal(data.status, 'refused', answer.raw);
  assert.equal(data.code, code, answer.raw);
  assert.equal(data.message.kind, 'vms.provenance');
  assert.deepEqual(data.message.source, { operationId, path: '$.message' });
  const keys = [
    'code',
    'message',
    'status',
    ...(report ? ['catalogVersion', 'closestMetrics'] : []),
  ].sort();
  assert.deepEqual(Object.keys(data).sort(), keys);
  if (report) {
    assert.ok(Array.isArray(data.closestMetrics));
    assert.match(data.catalogVersion, /^cv1-[0-9a-f]+$/);
  }
}

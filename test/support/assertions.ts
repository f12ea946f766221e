import assert from 'node:assert/strict';
import { ERRORS, wireCode, type ErrorCode } from '../../src/errors.js';
import type { Answer } from './harness.js';

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The HTTP status of each code on the wire (several reasons of the table may share a code). */
const STATUS_OF_CODE = new Map(
  (Object.keys(ERRORS) as ErrorCode[]).map((reason) => [wireCode(reason), ERRORS[reason].status]),
);

/**
 * DESIGN §4.1's error body, exactly `{error: {code, message}, request_id}`, with a code of the one
 * error table (ERRORS) and a lowercase UUID v4; also what an MCP tool error carries as its text.
 */
export function assertErrorBody(body: unknown): asserts body is {
  error: { code: string; message: string };
  request_id: string;
} {
  assert.ok(body !== null && typeof body === 'object' && !Array.isArray(body), String(body));
  const { error, request_id } = body as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'request_id']);
  assert.ok(error !== null && typeof error === 'object', JSON.stringify(body));
  assert.deepEqual(Object.keys(error).sort(), ['code', 'message']);
  const { code, message } = error as Record<string, unknown>;
  assert.ok(typeof code === 'string' && STATUS_OF_CODE.has(code), `code ${String(code)}`);
  assert.equal(typeof message, 'string');
  assert.match(String(request_id), UUID_V4);
}

/** An error answer: the body above, its code's status, and the same id in `x-request-id`. */
export function assertErrorAnswer(answer: Answer) {
  assertErrorBody(answer.body);
  assert.equal(answer.status, STATUS_OF_CODE.get(answer.body.error.code), answer.raw);
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

/**
 * The same seed in both stores gives the same answer to every operation: the data, with cursors
 * compared by presence (they are encrypted with a random IV) and floating-point values within a
 * relative 1e-9 (SQLite REAL and PostgreSQL numeric round their last digits differently).
 */
export function assertSameAnswer(a: unknown, b: unknown, path = '$'): void {
  if (
    typeof a === 'number' &&
    typeof b === 'number' &&
    !(Number.isInteger(a) && Number.isInteger(b))
  ) {
    assert.ok(
      Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b)),
      `${path}: ${a} vs ${b}`,
    );
    return;
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    assert.deepEqual(a, b, path);
    return;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    assert.ok(Array.isArray(a) && Array.isArray(b), path);
    assert.equal(a.length, b.length, `${path}.length`);
    a.forEach((v, i) => assertSameAnswer(v, (b as unknown[])[i], `${path}[${i}]`));
    return;
  }
  const ak = Object.keys(a).sort();
  assert.deepEqual(ak, Object.keys(b).sort(), `${path} keys`);
  for (const k of ak) {
    const av: unknown = (a as Record<string, unknown>)[k];
    const bv: unknown = (b as Record<string, unknown>)[k];
    if (k === 'nextCursor') assert.equal(av === null, bv === null, `${path}.nextCursor`);
    else assertSameAnswer(av, bv, `${path}.${k}`);
  }
}

import assert from 'node:assert/strict';
import type { Answer } from './harness.js';

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** DESIGN §4.1: `{error: {code, message}, request_id}` and the same id in `x-request-id`. */
export function assertError(answer: Answer, status: number, code: string) {
  assert.equal(answer.status, status, answer.raw);
  assert.deepEqual(Object.keys(answer.body).sort(), ['error', 'request_id']);
  assert.deepEqual(Object.keys(answer.body.error).sort(), ['code', 'message']);
  assert.equal(answer.body.error.code, code);
  assert.equal(typeof answer.body.error.message, 'string');
  assert.match(answer.body.request_id, UUID_V4);
  assert.equal(answer.headers['x-request-id'], answer.body.request_id);
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

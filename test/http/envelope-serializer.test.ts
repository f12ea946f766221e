import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serializeEnvelope } from '../../src/http/envelope-serializer.js';
import SEED_EXAMPLES from '../../src/http/openapi/seed-examples.json' with { type: 'json' };
import { OPERATIONS } from '../../src/operations/registry.js';

/**
 * The envelope serializer (src/http/envelope-serializer.ts) writes what JSON.stringify writes, for
 * REST's body, its data alone and MCP's escaped text, whether an answer is new or a repeat of
 * the same object from the cache. Every operation's seed example answer is the subject.
 */
const examples = SEED_EXAMPLES as Record<string, { response: { data: unknown } }>;

describe('the envelope serializer', () => {
  it('has an example answer of every operation', () => {
    for (const operation of OPERATIONS)
      assert.ok(examples[operation.name]?.response.data !== undefined, operation.name);
  });

  it('writes an answer once: a repeat of the same object is the same text, escaped as JSON.stringify escapes it', () => {
    for (const operation of OPERATIONS) {
      const answer = structuredClone(examples[operation.name].response.data);
      const first = Buffer.concat(serializeEnvelope(answer, 'r1')).toString();
      assert.equal(first, JSON.stringify({ data: answer, request_id: 'r1' }), operation.name);
      assert.equal(
        Buffer.concat(serializeEnvelope(answer, 'r2')).toString(),
        first.replace('"r1"', '"r2"'),
      );
      assert.equal(serializeEnvelope.data(answer).toString(), JSON.stringify(answer));
      const id = 'quote " and \\ in an id';
      assert.equal(
        Buffer.concat(serializeEnvelope.escaped(answer, id)).toString(),
        JSON.stringify(JSON.stringify({ data: answer, request_id: id })).slice(1, -1),
      );
      assert.equal(
        Buffer.concat(serializeEnvelope.escaped(answer, 'r1')).toString(),
        JSON.stringify(first).slice(1, -1),
      );
    }
  });

  it('writes an MCP answer first (escaped, then data) as REST writes it after', () => {
    for (const operation of OPERATIONS) {
      const answer = structuredClone(examples[operation.name].response.data);
      const escaped = Buffer.concat(serializeEnvelope.escaped(answer, 'r1')).toString();
      assert.equal(serializeEnvelope.data(answer).toString(), JSON.stringify(answer));
      const body = Buffer.concat(serializeEnvelope(answer, 'r1')).toString();
      assert.equal(escaped, JSON.stringify(body).slice(1, -1));
      assert.deepEqual(JSON.parse(body), { data: answer, request_id: 'r1' });
    }
  });
});

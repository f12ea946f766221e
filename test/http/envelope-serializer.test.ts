import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { envelopeSerializer } from '../../src/http/envelope-serializer.js';
import SEED_EXAMPLES from '../../src/http/openapi/seed-examples.json' with { type: 'json' };
import { OPERATIONS } from '../../src/operations/registry.js';

/**
 * The envelope serializer of every operation is warmed at start with the seed's example answer
 * (routes.ts): each example must fit its operation's schema, or the warming would be skipped
 * silently; and a warmed serializer writes exactly what a cold one does, and what JSON.stringify
 * does.
 */
const examples = SEED_EXAMPLES as Record<string, { response: { data: unknown } }>;

describe('envelope serializers warmed with the seed examples', () => {
  for (const operation of OPERATIONS) {
    it(`${operation.name}: the example fits, and warm equals cold equals JSON`, () => {
      const example = examples[operation.name]?.response.data;
      assert.ok(example !== undefined, 'an example answer exists');
      const cold = envelopeSerializer(operation)(example, 'r1');
      const warm = envelopeSerializer(operation, example)(example, 'r1');
      assert.equal(warm, cold);
      assert.deepEqual(JSON.parse(warm), { data: example, request_id: 'r1' });
    });
  }
});

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
      const cold = envelopeSerializer(operation)(example, 'r1').toString();
      const warm = envelopeSerializer(operation, example)(example, 'r1').toString();
      assert.equal(warm, cold);
      assert.deepEqual(JSON.parse(warm), { data: example, request_id: 'r1' });
    });
  }

  it('writes an answer once: a repeat of the same object is the same text, escaped as JSON.stringify escapes it', () => {
    for (const operation of OPERATIONS) {
      const serialize = envelopeSerializer(operation);
      const answer = structuredClone(examples[operation.name].response.data);
      const first = serialize(answer, 'r1').toString();
      assert.equal(serialize(answer, 'r2').toString(), first.replace('"r1"', '"r2"'));
      assert.equal(serialize.data(answer).toString(), JSON.stringify(answer));
      const id = 'quote " and \\ in an id';
      assert.equal(
        Buffer.concat(serialize.escaped(answer, id)).toString(),
        JSON.stringify(JSON.stringify({ data: answer, request_id: id })).slice(1, -1),
      );
      assert.equal(
        Buffer.concat(serialize.escaped(answer, 'r1')).toString(),
        JSON.stringify(first).slice(1, -1),
      );
    }
  });
});

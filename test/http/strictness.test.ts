import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OPERATIONS } from '../../src/operations/registry.js';
import { assertError } from '../support/assertions.js';
import {
  callOperation,
  get,
  post,
  qs,
  startHarness,
  validInput,
  type Harness,
  DIALECTS,
} from '../support/harness.js';

/** DESIGN §4.1's challenge, pointing at the RFC 9728 resource metadata (MCP issue). */
/**
 * DESIGN §4.1, §4.12: the 401 challenge of list_workers, pointing at the resource metadata and
 * naming the scope it needs; `error="invalid_token"` when a bearer token was presented.
 */
const challenge = (presented: boolean) =>
  new RegExp(
    `^Bearer realm="vms-read", ${presented ? 'error="invalid_token", ' : ''}resource_metadata="http://localhost(:80)?/\\.well-known/oauth-protected-resource", scope="read:workforce"$`,
  );

const lists = OPERATIONS.filter((op) => op.method === 'GET' && 'order' in op.input.properties);
const gets = OPERATIONS.filter((op) => op.method === 'GET' && 'id' in op.input.properties);

/** Query strings every list must reject with 404 before it runs (SPEC "Errors", DESIGN §4.2). */
const BAD_LIST_QUERIES: [string, string][] = [
  ['an unknown parameter', qs({ foo: '1' })],
  ['an unknown parameter beside valid ones', qs({ limit: 5, sort: 'name' })],
  ['a repeated parameter', qs({ limit: ['1', '2'] })],
  ['a repeated identical parameter', qs({ order: ['asc', 'asc'] })],
  ['limit 0', qs({ limit: 0 })],
  ['a negative limit', qs({ limit: -3 })],
  ['a fractional limit', qs({ limit: '1.5' })],
  ['a non-numeric limit', qs({ limit: 'ten' })],
  ['an empty limit', qs({ limit: '' })],
  ['an order outside its enumeration', qs({ order: 'up' })],
  ['an empty order', qs({ order: '' })],
  ['an empty cursor', qs({ cursor: '' })],
  ['a cursor over 512 characters', qs({ cursor: 'a'.repeat(513) })],
  ['a token in the query string', qs({ access_token: 'x' })],
];

/** DESIGN §4.2: integers in query parameters are canonical decimals, nothing else. */
const NON_CANONICAL_INTEGERS = [
  '0x10',
  '1e1',
  '+1',
  '01',
  '1.0',
  ' 1',
  '1 ',
  '\u0661',
  '\uff11',
  '1_0',
];

/** Every integer query parameter of every GET operation, found by walking the registry. */
const integerParameters = OPERATIONS.filter((op) => op.method === 'GET').flatMap((op) =>
  Object.entries(op.input.properties as Record<string, { type?: string }>)
    .filter(([, schema]) => schema.type === 'integer')
    .map(([name]) => ({ op, name })),
);

const BAD_GET_QUERIES: [string, string][] = [
  ['no id', ''],
  ['an empty id', qs({ id: '' })],
  ['an id over 64 characters', qs({ id: 'x'.repeat(65) })],
  ['a repeated id', qs({ id: ['a', 'b'] })],
  ['an unknown parameter', qs({ id: 'a', extra: '1' })],
  ['a list parameter', qs({ id: 'a', limit: 1 })],
];

for (const dialect of DIALECTS) {
  describe(`strictness: every rule of SPEC "Errors" on every operation (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect });
    });
    after(() => h.close());

    for (const op of lists) {
      describe(op.name, () => {
        for (const [rule, query] of BAD_LIST_QUERIES) {
          it(`answers 404 not_found for ${rule}`, async () => {
            assertError(await get(h.app, `${op.path}${query}`, h.tokens.staff), 404, 'not_found');
          });
        }
        it('accepts the common parameters', async () => {
          const answer = await get(
            h.app,
            `${op.path}${qs({ limit: 2, order: 'desc' })}`,
            h.tokens.staff,
          );
          assert.equal(answer.status, 200, answer.raw);
          assert.equal(answer.body.data.order, 'desc');
        });
        it('reduces a limit above the plan page size to it', async () => {
          const answer = await get(h.app, `${op.path}${qs({ limit: 100000 })}`, h.tokens.staff);
          assert.equal(answer.status, 200);
          assert.ok(answer.body.data.items.length <= 50);
        });
      });
    }

    for (const op of gets) {
      describe(op.name, () => {
        for (const [rule, query] of BAD_GET_QUERIES) {
          it(`answers 404 not_found for ${rule}`, async () => {
            assertError(await get(h.app, `${op.path}${query}`, h.tokens.staff), 404, 'not_found');
          });
        }
        it('answers {item: null} for an id of exactly 64 characters that does not exist', async () => {
          const answer = await get(
            h.app,
            `${op.path}${qs({ id: 'x'.repeat(64) })}`,
            h.tokens.staff,
          );
          assert.equal(answer.status, 200);
          assert.deepEqual(answer.body.data, { item: null });
        });
      });
    }

    describe('integers are canonical decimals (one rule for every integer parameter)', () => {
      it('finds the integer parameters to check', () => assert.ok(integerParameters.length >= 8));
      for (const { op, name } of integerParameters) {
        for (const value of NON_CANONICAL_INTEGERS) {
          it(`${op.name} answers 404 for ${name}=${JSON.stringify(value)}`, async () => {
            const answer = await get(h.app, `${op.path}${qs({ [name]: value })}`, h.tokens.staff);
            assertError(answer, 404, 'not_found');
          });
        }
        it(`${op.name} accepts ${name}=1`, async () => {
          const answer = await get(h.app, `${op.path}${qs({ [name]: '1' })}`, h.tokens.staff);
          assert.equal(answer.status, 200, answer.raw);
        });
      }
    });

    describe('routes', () => {
      it('answers 404 not_found for an unknown path, without asking for a token', async () => {
        assertError(await get(h.app, '/api/v1/nothing-here'), 404, 'not_found');
      });
      it('answers 404 not_found for a method the path does not have', async () => {
        assertError(await post(h.app, '/api/v1/workers', h.tokens.staff, {}), 404, 'not_found');
      });
    });

    describe('authentication (401) comes before strictness (404)', () => {
      it('answers 401 with WWW-Authenticate for a missing token', async () => {
        const answer = await get(h.app, '/api/v1/workers?bogus=1');
        assertError(answer, 401, 'unauthorized');
        assert.match(String(answer.headers['www-authenticate']), challenge(false));
      });
      it('answers 401 for two Authorization headers, even two valid ones', async () => {
        for (const headers of [
          [h.tokens.staff, h.tokens.staff],
          [h.tokens.staff, h.tokens.staff2],
        ]) {
          const answer = await get(h.app, '/api/v1/workers', undefined, {
            authorization: headers.map((t) => `Bearer ${t}`) as unknown as string,
          });
          assertError(answer, 401, 'unauthorized');
        }
      });
      for (const [what, header, presented] of [
        ['a header of another scheme', 'Token abc', false],
        ['an unknown token', `Bearer vmsr_${'A'.repeat(43)}`, true],
        ['a token of the wrong form', 'Bearer abc', true],
        ['a JWT while no issuer is configured', 'Bearer eyJhbGciOiJFUzI1NiJ9.e30.c2ln', true],
        ['an empty bearer', 'Bearer ', true],
      ] as const) {
        it(`answers 401 for ${what}`, async () => {
          const answer = await get(h.app, '/api/v1/workers', undefined, { authorization: header });
          assertError(answer, 401, 'unauthorized');
          assert.match(String(answer.headers['www-authenticate']), challenge(presented));
        });
      }
    });

    describe('scope (403) comes after strictness (404)', () => {
      it('answers 403 insufficient_scope naming the scope needed', async () => {
        const answer = await get(h.app, '/api/v1/workers', h.tokens.programOnly);
        assertError(answer, 403, 'insufficient_scope');
        assert.equal(
          answer.headers['www-authenticate'],
          'Bearer error="insufficient_scope", scope="read:workforce"',
        );
      });
      it('answers 404 for a bad parameter even when the scope is missing', async () => {
        assertError(
          await get(h.app, '/api/v1/workers?bogus=1', h.tokens.programOnly),
          404,
          'not_found',
        );
      });
      for (const op of OPERATIONS) {
        if (op.scope === null) {
          it(`${op.name} needs no particular scope: any valid token may call it`, async () => {
            for (const token of [h.tokens.programOnly, h.tokens.workforceOnly]) {
              const answer = await callOperation(h.app, op, token, validInput(op));
              assert.equal(answer.status, 200, answer.raw);
            }
          });
          continue;
        }
        it(`${op.name} needs ${op.scope}`, async () => {
          const token = op.scope === 'read:program' ? h.tokens.workforceOnly : h.tokens.programOnly;
          const answer = await callOperation(h.app, op, token, validInput(op));
          assertError(answer, 403, 'insufficient_scope');
          assert.equal(
            answer.headers['www-authenticate'],
            `Bearer error="insufficient_scope", scope="${op.scope}"`,
          );
        });
      }
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`quota (${dialect})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ dialect, quotaPerMinute: 3 });
    });
    after(() => h.close());

    it('answers 429 rate_limited with Retry-After once the token has spent its budget, before strictness', async () => {
      for (let i = 0; i < 3; i++)
        assert.equal((await get(h.app, '/api/v1/workers?limit=1', h.tokens.staff)).status, 200);
      const answer = await get(h.app, '/api/v1/workers?bogus=1', h.tokens.staff);
      assertError(answer, 429, 'rate_limited');
      assert.match(String(answer.headers['retry-after']), /^[1-9]\d*$/);
    });
    it('counts per token', async () => {
      assert.equal((await get(h.app, '/api/v1/workers?limit=1', h.tokens.staff2)).status, 200);
    });
  });
}

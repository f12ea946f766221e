/**
 * Fuzzing the REST API: random and mutated requests over every operation of the registry, on
 * both stores. Seeded (VMS_READ_FUZZ_SEED) and bounded in time; see fuzz-settings.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { assertError } from '../support/assertions.js';
import { DIALECTS, qs, validInput } from '../support/harness.js';
import {
  assertNoEcho,
  assertNot5xx,
  assertRefusalShape,
  assertRestAnswer,
} from './answer-rules.js';
import { fuzzSuite } from './fuzz-context.js';
import { operationName, operationNamed, sendRequest } from './fuzz-request.js';
import { describeRules, fuzz } from './fuzz-settings.js';
import { reportRequest } from './report-queries.js';
import { restRequest, validRequest } from './rest-requests.js';
import { oversized, sizedBody, withinLimit } from './sized-bodies.js';
import { FAMILIES, strictnessViolation, type Family } from './strictness-violations.js';

const isPost = (op: { method: string }) => op.method === 'POST';
const ANY = 'random and mutated requests to every operation, unknown paths and /healthz';
const VALID = 'schema-valid input with every role’s token, real and altered cursors';
const REPORTS = 'report queries built from the catalog (hostile filter values, wrong counts)';

for (const dialect of DIALECTS)
  describe(`fuzzing the REST API (${dialect})`, () => {
    const suite = fuzzSuite(dialect);

    describeRules(suite, {
      'no request is answered with a 5xx': [
        [ANY, restRequest, assertNot5xx],
        [VALID, validRequest, assertNot5xx],
        [REPORTS, reportRequest, assertNot5xx],
      ],
      'every answer is {data, request_id} or exactly the error body, its request_id in x-request-id':
        [[ANY, restRequest, assertRestAnswer]],
      'error messages never echo request input': [
        ['random and mutated requests carrying a marker anywhere', restRequest, assertNoEcho],
      ],
      'a refusal carries a documented code and a provenance message': [
        [VALID, validRequest, assertRefusalShape],
        [REPORTS, reportRequest, assertRefusalShape],
      ],
    });

    describe('a request that breaks a strictness rule is 404 not_found', () => {
      for (const [family, rules] of Object.entries(FAMILIES))
        it(`holds for ${rules}`, () =>
          fuzz(strictnessViolation(family as Family, suite.ctx.pools), async (violation) => {
            const post = violation.payload !== undefined;
            const answer = await sendRequest(suite.h.app, {
              method: post ? 'POST' : 'GET',
              url: violation.url,
              headers: {
                authorization: `Bearer ${suite.h.tokens.staff}`,
                ...(post ? { 'content-type': violation.contentType ?? 'application/json' } : {}),
              },
              payload: violation.payload,
            });
            assertError(answer, 404, 'not_found');
          }));
    });

    describe('two Authorization headers are 401 unauthorized', () => {
      it('holds for any two values, valid tokens of any role included, on every operation', () =>
        fuzz(
          fc.tuple(
            operationName(),
            fc.constantFrom(...suite.ctx.bearers),
            fc.oneof(
              fc.constantFrom(...suite.ctx.bearers),
              suite.ctx.authorization.filter((a) => typeof a === 'string'),
            ),
            fc.boolean(),
          ),
          async ([name, valid, other, validFirst]) => {
            const op = operationNamed(name);
            const input = validInput(op);
            const answer = await sendRequest(suite.h.app, {
              method: op.method,
              url: op.method === 'GET' ? op.path + qs(input as Record<string, string>) : op.path,
              headers: {
                authorization: validFirst ? [valid, other as string] : [other as string, valid],
                'content-type': 'application/json',
              },
              payload: JSON.stringify(input),
            });
            assertError(answer, 401, 'unauthorized');
          },
        ));
    });

    describe('a body over 1 MiB is 413 payload_too_large, and one up to 1 MiB is read', () => {
      const postWith = (name: string, payload: string) =>
        sendRequest(suite.h.app, {
          method: 'POST',
          url: operationNamed(name).path,
          headers: {
            authorization: `Bearer ${suite.h.tokens.staff}`,
            'content-type': 'application/json',
          },
          payload,
        });
      it('refuses every operation’s oversized body with 413', () =>
        fuzz(
          fc.tuple(operationName(isPost), oversized),
          async ([name, { kind, size }]) => {
            const valid = JSON.stringify(validInput(operationNamed(name)));
            const answer = await postWith(name, sizedBody(kind, size, valid));
            assertError(answer, 413, 'payload_too_large');
          },
          { numRuns: 30 },
        ));
      it('answers a valid body padded with whitespace as the unpadded one', () =>
        fuzz(
          fc.tuple(operationName(isPost), withinLimit),
          async ([name, size]) => {
            const valid = JSON.stringify(validInput(operationNamed(name)));
            const plain = await postWith(name, valid);
            const padded = await postWith(name, sizedBody('padded valid JSON', size, valid));
            assert.equal(padded.status, plain.status, padded.raw.slice(0, 300));
            assert.equal(padded.body.data?.status, plain.body.data?.status);
          },
          { numRuns: 30 },
        ));
    });
  });

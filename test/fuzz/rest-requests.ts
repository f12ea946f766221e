import fc from 'fast-check';
import { OPERATIONS } from '../../src/operations/registry.js';
import type { AnyOperation } from '../../src/operations/operation.js';
import { validInput } from '../support/harness.js';
import type { FuzzContext } from './fuzz-context.js';
import { headersOf, usually, type FuzzRequest } from './fuzz-request.js';
import { hostileText, integerText, marker, percentEncode, queryString } from './hostile-text.js';
import { hostileJson, mutatedJson, notJson, unknownKey, type Json } from './json-mutations.js';
import { operationInput } from './report-queries.js';
import { validValue, type Schema } from './schema-values.js';

/** Random and mutated REST requests: every operation of the registry, unknown paths, /healthz. */

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'];

export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { withCrossShrink: true },
  { weight: 10, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    'application/json; charset=utf-8',
    'APPLICATION/JSON',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonx',
    'text/json',
    '',
    undefined,
  ),
  marker.map((m) => `application/${m}`),
);

/** Query parameters: the operation's own (valid, non-canonical, hostile), unknown ones, repeats. */
function queryPairs(op: AnyOperation, ctx: FuzzContext): fc.Arbitrary<[string, string][]> {
  const own = Object.entries(op.input.properties as Record<string, Schema>).map(([key, schema]) =>
    fc.tuple(
      fc.constant(key),
      fc.oneof(
        { weight: 3, arbitrary: validValue(schema, ctx.pools, key).map(String) },
        integerText,
        hostileText,
      ),
    ),
  );
  const unknown = fc.tuple(
    fc.oneof(unknownKey, fc.constantFrom('access_token', 'limit[]', 'a[b]', 'token'), hostileText),
    hostileText,
  );
  return fc.array(fc.oneof(...own, unknown), { maxLength: 4 });
}

/** A JSON body: schema-valid, a mutation of a valid one, anything, or not JSON at all. */
export function jsonInput(op: AnyOperation, ctx: FuzzContext): fc.Arbitrary<Json | undefined> {
  const valid = operationInput(op, ctx);
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 3, arbitrary: mutatedJson(validInput(op) as Json) },
    { weight: 2, arbitrary: valid.chain(mutatedJson) },
    { weight: 1, arbitrary: hostileJson },
  );
}

function bodyText(op: AnyOperation, ctx: FuzzContext): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 9, arbitrary: jsonInput(op, ctx).map((json) => JSON.stringify(json)) },
    { weight: 1, arbitrary: notJson(JSON.stringify(validInput(op))) },
  );
}

const extraHeaders = fc.record(
  {
    'x-request-id': fc.oneof(marker, fc.constant('00000000-0000-4000-8000-000000000000')),
    accept: fc.constantFrom('text/html', '*/*', 'application/xml'),
    'x-forwarded-for': fc.constant('203.0.113.9'),
  },
  { requiredKeys: [] },
);

function operationRequest(op: AnyOperation, ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const post = op.method === 'POST';
  return fc
    .record({
      method: usually(op.method as string, fc.constantFrom(...METHODS)),
      query: post ? usually<[string, string][]>([], queryPairs(op, ctx)) : queryPairs(op, ctx),
      payload: post ? bodyText(op, ctx) : usually(undefined, bodyText(op, ctx)),
      contentType: post ? contentType : usually(undefined, contentType),
      authorization: ctx.authorization,
      extra: extraHeaders,
    })
    .map(({ method, query, payload, contentType, authorization, extra }) => ({
      method,
      url: op.path + queryString(query),
      headers: headersOf({ ...extra, authorization, 'content-type': contentType }),
      payload,
    }));
}

const PATH_VARIANTS: ((path: string) => string)[] = [
  (p) => p.toUpperCase(),
  (p) => `${p}/`,
  (p) => p.replace('/api/', '//api//'),
  (p) => p.replace('/v1/', '/v2/'),
  (p) => `${p}/x`,
  (p) => `${p};x=1`,
  (p) => p.replace(/\/([a-z])/, (_, c: string) => `/%${c.charCodeAt(0).toString(16)}`),
  (p) => `${p}/../${p.split('/').pop()}`,
  (p) => `${p}%00`,
  (p) => `${p}%ED%A0%80`,
  (p) => `${p}%zz`,
];

/** Paths the registry does not have (or has in another spelling), and /healthz. */
const strangePath: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(fc.constantFrom(...OPERATIONS.map((op) => op.path)), fc.nat(PATH_VARIANTS.length - 1))
    .map(([path, i]) => PATH_VARIANTS[i](path)),
  fc
    .array(fc.oneof(marker, hostileText), { minLength: 1, maxLength: 3 })
    .map((segments) => `/api/v1/${segments.map(percentEncode).join('/')}`),
  fc
    .tuple(marker, fc.constantFrom('%zz', '%ED%A0%80', '%00', '%', '%C0%AF'))
    .map(([m, bad]) => `/api/v1/${m}${bad}`),
  fc.constantFrom('/healthz', '/', '/api', '/api/v1', '/healthz/', '/HEALTHZ', '//', '/mcp/x'),
  fc.constantFrom('/app', '/docs', '/openapi.json', '/app/assets/none.js', '/docs/assets/x'),
);

function strangePathRequest(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.constantFrom(...METHODS),
      path: strangePath,
      query: fc.array(fc.tuple(fc.oneof(unknownKey, hostileText), hostileText), { maxLength: 2 }),
      authorization: ctx.authorization,
    })
    .map(({ method, path, query, authorization }) => ({
      method,
      url: path + queryString(query),
      headers: headersOf({ authorization }),
    }));
}

/** Any REST request: mostly to an operation of the registry, now and then to a path it lacks. */
export function restRequest(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.oneof(...OPERATIONS.map((op) => operationRequest(op, ctx))) },
    { weight: 1, arbitrary: strangePathRequest(ctx) },
  );
}

/** A schema-valid request with a valid token of any role: what reaches the operations. */
export function validRequest(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const one = (op: AnyOperation) =>
    fc
      .tuple(operationInput(op, ctx), fc.constantFrom(...ctx.bearers))
      .map(([input, authorization]): FuzzRequest => {
        const members = Object.entries(input as Record<string, Json>);
        return op.method === 'GET'
          ? {
              method: 'GET',
              url: op.path + queryString(members.map(([k, v]) => [k, String(v)] as const)),
              headers: { authorization },
            }
          : {
              method: 'POST',
              url: op.path,
              headers: { authorization, 'content-type': 'application/json' },
              payload: JSON.stringify(input),
            };
      });
  return fc.oneof(...OPERATIONS.map(one));
}

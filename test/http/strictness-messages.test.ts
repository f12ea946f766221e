import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client, CallToolResult } from '@modelcontextprotocol/client';
import { ERRORS } from '../../src/errors.js';
import { OPERATIONS } from '../../src/operations/registry.js';
import { assertError } from '../support/assertions.js';
import {
  callOperation,
  get,
  post,
  send,
  startHarness,
  validInput,
  type Answer,
  type Harness,
} from '../support/harness.js';
import { assertToolError, inMemoryClient } from '../support/mcp-client.js';

/**
 * Issue 13, item 7: a strictness 404 names the parameter or member and the rule it broke (from
 * the schema), never the value given nor a name the client made up. Strictness comes before the
 * store, so one store is enough here.
 */

const MARKER = 'ZQ0123456789ab';
const QUERY = '/api/v1/reports/query';

/** Query strings and the exact message each gets. */
const GET_MESSAGES: [string, string][] = [
  [
    '/api/v1/workers?limit=abc',
    'Parameter `limit` must be a whole number of at least 1, written in plain decimal digits.',
  ],
  [
    '/api/v1/workers?limit=0x10',
    'Parameter `limit` must be a whole number of at least 1, written in plain decimal digits.',
  ],
  [
    `/api/v1/suppliers?${MARKER}=1`,
    'An unknown parameter was given; allowed: limit, cursor, order.',
  ],
  [
    `/api/v1/workers?${MARKER}=1`,
    'An unknown parameter was given; allowed: limit, cursor, order, status, onboardingState, ids.',
  ],
  [
    '/api/v1/invoices?status=paid',
    'Parameter `status` must be one of: draft, issued, pushed, void.',
  ],
  [
    '/api/v1/timesheets?periodFrom=2024-02-30',
    'Parameter `periodFrom` must be a calendar date written YYYY-MM-DD.',
  ],
  [
    '/api/v1/invoices?periodFrom=2024-03-01&periodTo=2024-02-01',
    'The parameter periodFrom must be on or before periodTo.',
  ],
  [
    `/api/v1/suppliers?limit=2&${MARKER}=1&${MARKER}=2`,
    'An unknown parameter was given; allowed: limit, cursor, order.',
  ],
  [
    '/api/v1/workers?limit=1&limit=2',
    'Parameter `limit` was given more than once; give each parameter at most once.',
  ],
  [`/api/v1/invoices?order=${MARKER}`, 'Parameter `order` must be one of: asc, desc.'],
  ['/api/v1/timesheets?cursor=', 'Parameter `cursor` must be text of 1 to 512 characters.'],
  ['/api/v1/workers/item', 'Parameter `id` is required: text of 1 to 64 characters.'],
  [
    `/api/v1/workers/item?id=${MARKER}${'x'.repeat(64)}`,
    'Parameter `id` must be text of 1 to 64 characters.',
  ],
  [`/api/v1/reports/catalog?${MARKER}=1`, 'This operation takes no parameters.'],
  [
    '/api/v1/reports/saved-queries?limit=51',
    'Parameter `limit` must be a whole number from 1 to 50, written in plain decimal digits.',
  ],
  [
    `/api/v1/reports/saved-queries?kind=${MARKER}`,
    'Parameter `kind` must be one of: library, dashboard_tile, briefing.',
  ],
];

const metrics = ['spend'];

/** Bodies of run_semantic_query and the exact message each gets. */
const BODY_MESSAGES: [string, unknown, string][] = [
  [
    'an offset out of range in a relative period',
    { query: { metrics }, period: { kind: 'relative', unit: 'month', offset: 5 } },
    'Member `period.offset` must be a whole number from -24 to 0.',
  ],
  [
    'a quarter period without its quarter',
    { query: { metrics }, period: { kind: 'quarter' } },
    'Member `period.quarter` is required: a whole number from 1 to 4.',
  ],
  [
    'a period of neither kind',
    { query: { metrics }, period: { kind: MARKER } },
    'Member `period` must be an object {kind: "relative", unit, offset} or an object {kind: "quarter", quarter, year?}.',
  ],
  [
    'an impossible calendar date',
    { query: { metrics, timeRange: { from: '2024-13-01', to: '2024-12-31' } } },
    'Member `query.timeRange.from` must be a calendar date written YYYY-MM-DD.',
  ],
  [
    'a time range that ends before it starts (a rule beyond the schema)',
    { query: { metrics, timeRange: { from: '2024-03-01', to: '2024-01-01' } } },
    'Member `query.timeRange.from` must be on or before `query.timeRange.to`.',
  ],
  [
    'both period and query.timeRange',
    {
      query: { metrics, timeRange: { from: '2024-01-01', to: '2024-02-01' } },
      period: { kind: 'quarter', quarter: 1 },
    },
    'Send `period` or `query.timeRange`, not both.',
  ],
  [
    'a filter value that is neither text nor a whole number',
    { query: { metrics, filters: [{ dimension: 'currency', operator: 'eq', values: [1.5] }] } },
    'Member `query.filters[0].values[0]` must be text of at most 256 characters or a whole number.',
  ],
  [
    'an operator outside its enumeration',
    { query: { metrics, filters: [{ dimension: 'currency', operator: MARKER, values: [1] }] } },
    'Member `query.filters[0].operator` must be one of: eq, neq, in, gte, lte, between.',
  ],
  [
    'an unknown member of the query',
    { query: { metrics, [MARKER]: 1 } },
    'Member `query` has an unknown member; allowed: metrics, dimensions, filters, timeGrain, timeRange, order, limit.',
  ],
  [
    'an unknown member of the body',
    { query: { metrics }, [MARKER]: 1 },
    'The body has an unknown member; allowed: query, period, cursor.',
  ],
  [
    'no metrics',
    { query: { metrics: [] } },
    'Member `query.metrics` must be a list of 1 to 20 distinct items, each text of 1 to 64 characters.',
  ],
  [
    'a row limit over 1000',
    { query: { metrics, limit: 5000 } },
    'Member `query.limit` must be a whole number from 1 to 1000.',
  ],
  [
    'a time grain outside its enumeration',
    { query: { metrics, timeGrain: MARKER } },
    'Member `query.timeGrain` must be one of: day, week, month, quarter, year, or null.',
  ],
  [
    'no query',
    {},
    'Member `query` is required: an object {metrics, dimensions?, filters?, timeGrain?, timeRange?, order?, limit?}.',
  ],
  [
    'a body that is not an object',
    [MARKER],
    'The body must be an object {query, period?, cursor?}.',
  ],
];

const NOT_JSON =
  'The body must be a JSON object sent with the header Content-Type: application/json.';

/** Requests refused before the schema is read, and the message each gets. */
const REQUEST_MESSAGES: [string, () => Parameters<typeof send>[1], string][] = [
  [
    'no content type',
    () => ({ method: 'POST', url: QUERY, payload: JSON.stringify({ query: { metrics } }) }),
    NOT_JSON,
  ],
  [
    'a text/plain body',
    () => ({
      method: 'POST',
      url: QUERY,
      headers: { 'content-type': 'text/plain' },
      payload: MARKER,
    }),
    NOT_JSON,
  ],
  [
    'a content type Fastify has no parser for',
    () => ({
      method: 'POST',
      url: QUERY,
      headers: { 'content-type': `application/${MARKER}` },
      payload: MARKER,
    }),
    NOT_JSON,
  ],
  [
    'a body that is not JSON',
    () => ({
      method: 'POST',
      url: QUERY,
      headers: { 'content-type': 'application/json' },
      payload: `{"${MARKER}":`,
    }),
    'The body is not valid JSON.',
  ],
  [
    'an empty JSON body',
    () => ({
      method: 'POST',
      url: QUERY,
      headers: { 'content-type': 'application/json' },
      payload: '',
    }),
    'The body is empty; send a JSON object.',
  ],
  [
    'a __proto__ member',
    () => ({
      method: 'POST',
      url: QUERY,
      headers: { 'content-type': 'application/json' },
      payload: `{"__proto__":{"${MARKER}":1}}`,
    }),
    'The body has a member named __proto__ or constructor.prototype, which is never accepted.',
  ],
  [
    'a query parameter on a POST',
    () => ({
      method: 'POST',
      url: `${QUERY}?${MARKER}=1`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ query: { metrics } }),
    }),
    'This operation takes no query parameters; send its input as a JSON body.',
  ],
];

function assertStrictness(answer: Answer, message: string): void {
  assertError(answer, 404, 'not_found');
  assert.equal(answer.body.error.message, message);
  assert.ok(!answer.raw.includes(MARKER), `no echo: ${answer.raw}`);
}

describe('strictness 404s say which parameter or member broke which rule', () => {
  let h: Harness;
  let client: Client;
  before(async () => {
    h = await startHarness();
    client = await inMemoryClient(h.executor, h.tokens.staff);
  });
  after(async () => {
    await client.close();
    await h.close();
  });

  /** The message a tool call gets: the same error body as HTTP, as the isError text. */
  async function toolMessage(name: string, args: Record<string, unknown>): Promise<string> {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    assertToolError(result, 'not_found');
    const text = (result.content[0] as { text: string }).text;
    assert.ok(!text.includes(MARKER), `no echo: ${text}`);
    return JSON.parse(text).error.message;
  }

  describe('query parameters', () => {
    for (const [url, message] of GET_MESSAGES)
      it(`${url.slice(0, 80)} → ${message}`, async () => {
        assertStrictness(await get(h.app, url, h.tokens.staff), message);
      });
  });

  describe('run_semantic_query bodies, over HTTP and as MCP tool arguments', () => {
    for (const [name, body, message] of BODY_MESSAGES)
      it(`${name} → ${message}`, async () => {
        assertStrictness(await post(h.app, QUERY, h.tokens.staff, body), message);
        if (body !== null && typeof body === 'object' && !Array.isArray(body))
          assert.equal(
            await toolMessage('run_semantic_query', body as Record<string, unknown>),
            message,
          );
      });
  });

  describe('bodies refused before the schema', () => {
    for (const [name, request, message] of REQUEST_MESSAGES)
      it(`${name} → ${message}`, async () => {
        const options = request();
        options.headers = { ...options.headers, authorization: `Bearer ${h.tokens.staff}` };
        assertStrictness(await send(h.app, options), message);
      });
  });

  it('gives MCP tool arguments of a GET operation the messages its query string gets', async () => {
    assert.equal(
      await toolMessage('list_workers', { limit: '5' }),
      'Parameter `limit` must be a whole number of at least 1.',
    );
    assert.equal(
      await toolMessage('list_workers', { [MARKER]: 1 }),
      'An unknown parameter was given; allowed: limit, cursor, order, status, onboardingState, ids.',
    );
    assert.equal(
      await toolMessage('get_invoice', {}),
      'Parameter `id` is required: text of 1 to 64 characters.',
    );
  });

  it('names the allowed parameters or members when an unknown one is given, on every operation', async () => {
    for (const op of OPERATIONS) {
      const answer = await callOperation(h.app, op, h.tokens.staff, {
        ...validInput(op),
        [MARKER]: MARKER,
      });
      assertError(answer, 404, 'not_found');
      assert.notEqual(answer.body.error.message, ERRORS.not_found.message, op.name);
      assert.ok(!answer.raw.includes(MARKER), `${op.name}: ${answer.raw}`);
      for (const name of Object.keys(op.input.properties))
        assert.ok(answer.body.error.message.includes(name), `${op.name} lists ${name}`);
    }
  });

  it('keeps the generic message for a path that does not exist', async () => {
    const answer = await get(h.app, `/api/v1/${MARKER}`, h.tokens.staff);
    assertError(answer, 404, 'not_found');
    assert.equal(answer.body.error.message, ERRORS.not_found.message);
  });
});

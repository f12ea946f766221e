import type { FastifyInstance } from 'fastify';
import type { AnyOperation } from '../../operations/operation.js';
import type { OperationExample, OperationExamples } from './document.js';

/**
 * The OpenAPI document's examples, taken from the seed data: each operation called once on a
 * service over the tiny seed (`npm run openapi` does it, and the drift test does it again). Ids
 * come from the lists' own answers, so every example is a real record. What depends on the token
 * or the moment (the request id, a cursor, which is bound to its token) is replaced by a fixed
 * stand-in, so the same seed gives the same examples.
 */

const REQUEST_ID = '9b2f1d7e-3c4a-4f6b-8e2d-1a5c7b9e0f31';
const CURSOR = 'opaque-cursor-from-the-previous-page';

/** A report query on the default catalog: hours by supplier and month over one quarter. */
export const EXAMPLE_QUERY = {
  metrics: ['hours_worked', 'overtime_hours'],
  dimensions: ['supplier'],
  timeGrain: 'month',
  timeRange: { from: '2026-01-01', to: '2026-03-31' },
  order: [{ key: 'hours_worked', direction: 'desc' }],
  limit: 5,
};

type Input = Record<string, unknown>;
type Inputs = (answers: ReadonlyMap<string, unknown>) => Input;

/** The id of a list's item already answered: its first, or its last (a smaller example). */
const idOf = (answers: ReadonlyMap<string, unknown>, list: string, which: 'first' | 'last') => {
  const { items } = (answers.get(list) as { data: { items: { id: string }[] } }).data;
  return items[which === 'first' ? 0 : items.length - 1].id;
};
const firstId = (answers: ReadonlyMap<string, unknown>, list: string) =>
  idOf(answers, list, 'first');

/** Each operation's example input, in the order they run (a get after its list). */
const INPUTS: Record<string, Inputs> = {
  list_catalog: () => ({}),
  run_semantic_query: () => ({ query: EXAMPLE_QUERY }),
  list_saved_queries: () => ({ limit: 2 }),
  run_saved_query: (a) => ({ savedQueryId: firstId(a, 'list_saved_queries') }),
  list_workers: () => ({ limit: 2 }),
  get_worker: (a) => ({ id: firstId(a, 'list_workers') }),
  list_timesheets: () => ({ limit: 2 }),
  get_timesheet: (a) => ({ id: firstId(a, 'list_timesheets') }),
  list_invoices: () => ({ limit: 2 }),
  // The first invoice of the seed has hundreds of lines; the second a handful.
  get_invoice: (a) => ({ id: idOf(a, 'list_invoices', 'last') }),
  list_suppliers: () => ({ limit: 2 }),
  list_assignments: () => ({ limit: 2 }),
  list_expenses: () => ({ limit: 2 }),
  list_approval_statuses: () => ({ limit: 2 }),
  list_changes: () => ({ type: 'invoice', limit: 2 }),
  list_audit_events: () => ({ operation: 'get_worker', limit: 2 }),
};

/** Replaces what varies by token or moment with its stand-in, everywhere in an answer. */
function steady(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(steady);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => {
      if (key === 'request_id') return [key, REQUEST_ID];
      if (key === 'nextCursor' && typeof member === 'string') return [key, CURSOR];
      return [key, steady(member)];
    }),
  );
}

async function call(
  app: FastifyInstance,
  operation: AnyOperation,
  input: Input,
  token: string,
): Promise<unknown> {
  const query = Object.fromEntries(Object.entries(input).map(([k, v]) => [k, String(v)]));
  const response = await app.inject({
    method: operation.method,
    url: operation.path,
    headers: { authorization: `Bearer ${token}` },
    ...(operation.method === 'GET' ? { query } : { payload: input }),
  });
  if (response.statusCode !== 200)
    throw new Error(`${operation.name} example answered ${response.statusCode}: ${response.body}`);
  return response.json();
}

/** Runs every operation's example with a staff token holding every scope (`read:audit` too). */
export async function captureExamples(
  app: FastifyInstance,
  operations: readonly AnyOperation[],
  token: string,
): Promise<OperationExamples> {
  const answers = new Map<string, unknown>();
  const examples: Record<string, OperationExample> = {};
  for (const operation of operations) {
    const inputs = INPUTS[operation.name];
    if (!inputs) throw new Error(`no example input for ${operation.name}`);
    const input = inputs(answers);
    const answer = await call(app, operation, input, token);
    answers.set(operation.name, answer);
    examples[operation.name] = { input, response: steady(answer) };
  }
  return examples;
}

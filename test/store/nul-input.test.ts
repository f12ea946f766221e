import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, assertRefusal, assertSameAnswer } from '../support/assertions.js';
import {
  get,
  post,
  qs,
  startHarness,
  WS,
  type Answer,
  type Harness,
  DIALECTS,
} from '../support/harness.js';

const NUL = '\u0000';
const QUERY = '/api/v1/reports/query';

/** Requests carrying U+0000 in every kind of string input, with the answer each must get. */
interface Case {
  name: string;
  send: (h: Harness, ids: Ids) => Promise<Answer>;
  expect: (answer: Answer, ids: Ids) => void;
}
interface Ids {
  worker: string;
  invoice: string;
  supplier: string;
}

/** A spend-by-supplier report with these filters. */
const report = (h: Harness, filters: unknown[]) =>
  post(h.app, QUERY, h.tokens.staff, {
    query: { metrics: ['spend'], dimensions: ['supplier'], filters, limit: 1000 },
  });

const CASES: Case[] = [
  {
    name: 'a get id with NUL answers {item: null}',
    send: (h, ids) =>
      get(h.app, `/api/v1/workers/item${qs({ id: `${ids.worker}${NUL}` })}`, h.tokens.staff),
    expect: (a) => assert.deepEqual(a.body.data, { item: null }),
  },
  {
    name: 'an invoice id that is NUL alone answers {item: null}',
    send: (h) => get(h.app, `/api/v1/invoices/item${qs({ id: NUL })}`, h.tokens.staff),
    expect: (a) => assert.deepEqual(a.body.data, { item: null }),
  },
  {
    name: 'a timesheet id with NUL in the middle answers {item: null}',
    send: (h) => get(h.app, `/api/v1/timesheets/item${qs({ id: `ts${NUL}1` })}`, h.tokens.staff),
    expect: (a) => assert.deepEqual(a.body.data, { item: null }),
  },
  {
    name: 'a cursor with NUL is refused invalid_cursor',
    send: (h) => get(h.app, `/api/v1/workers${qs({ cursor: `abc${NUL}` })}`, h.tokens.staff),
    expect: (a) => assertRefusal(a, 'invalid_cursor', 'list_workers', false),
  },
  {
    name: 'an enumerated parameter with NUL is a strictness 404',
    send: (h) => get(h.app, `/api/v1/workers${qs({ order: `asc${NUL}` })}`, h.tokens.staff),
    expect: (a) => assertError(a, 404, 'not_found'),
  },
  {
    name: 'a saved-query kind with NUL is a strictness 404',
    send: (h) =>
      get(h.app, `/api/v1/reports/saved-queries${qs({ kind: `library${NUL}` })}`, h.tokens.staff),
    expect: (a) => assertError(a, 404, 'not_found'),
  },
  {
    name: 'a saved-query id with NUL is refused not_found',
    send: (h) =>
      post(h.app, '/api/v1/reports/saved-queries/run', h.tokens.staff, {
        savedQueryId: `sq${NUL}`,
      }),
    expect: (a) => assertRefusal(a, 'not_found', 'run_saved_query', true),
  },
  {
    name: 'an eq filter value with NUL matches nothing',
    send: (h, ids) =>
      report(h, [{ dimension: 'supplier', operator: 'eq', values: [`${ids.supplier}${NUL}`] }]),
    expect: (a) => assert.equal(a.body.data.status, 'empty', a.raw),
  },
  {
    name: 'an in filter with a NUL value answers as without it',
    send: (h, ids) =>
      report(h, [
        {
          dimension: 'supplier',
          operator: 'in',
          values: [ids.supplier, `${ids.supplier}${NUL}x`],
        },
      ]),
    expect: (a) => assert.equal(a.body.data.rows.length, 1, a.raw),
  },
  {
    name: 'a neq filter value with NUL keeps every row',
    send: (h) => report(h, [{ dimension: 'supplier', operator: 'neq', values: [NUL] }]),
    expect: (a) => assert.equal(a.body.data.status, 'ok', a.raw),
  },
  {
    name: 'gte with NUL keeps exactly the values above the text before the NUL',
    send: (h, ids) =>
      report(h, [{ dimension: 'supplier', operator: 'gte', values: [`${ids.supplier}${NUL}`] }]),
    expect: (a, ids) => {
      const values = (a.body.data.rows as { supplier: { value: string } }[]).map(
        (r) => r.supplier.value,
      );
      assert.ok(values.length > 0, a.raw);
      // Code-point order is UTF-8 byte order; the text before the NUL itself is excluded.
      const above = (v: string) => Buffer.compare(Buffer.from(v), Buffer.from(ids.supplier)) > 0;
      assert.ok(values.every(above), a.raw);
    },
  },
  {
    name: 'between with NUL bounds answers',
    send: (h) =>
      report(h, [{ dimension: 'supplier', operator: 'between', values: [`A${NUL}`, `z${NUL}`] }]),
    expect: (a) => assert.equal(a.status, 200, a.raw),
  },
  {
    name: 'a filter with NUL and the wrong count of values is refused bad_filter',
    send: (h) => report(h, [{ dimension: 'supplier', operator: 'eq', values: [NUL, NUL] }]),
    expect: (a) => assertRefusal(a, 'bad_filter', 'run_semantic_query', true),
  },
  {
    name: 'a time filter with NUL is refused bad_filter',
    send: (h) =>
      report(h, [{ dimension: 'invoice_period', operator: 'gte', values: [`2026-01-01${NUL}`] }]),
    expect: (a) => assertRefusal(a, 'bad_filter', 'run_semantic_query', true),
  },
  {
    name: 'a metric key with NUL is refused unknown_metric',
    send: (h) => post(h.app, QUERY, h.tokens.staff, { query: { metrics: [`spend${NUL}`] } }),
    expect: (a) => assertRefusal(a, 'unknown_metric', 'run_semantic_query', true),
  },
  {
    name: 'a token with NUL is 401',
    send: (h) =>
      get(h.app, '/api/v1/workers', undefined, {
        authorization: `Bearer ${h.tokens.staff}${NUL}`,
      }),
    expect: (a) => assertError(a, 401, 'unauthorized'),
  },
];

async function idsOf(h: Harness): Promise<Ids> {
  return {
    worker: (
      await h.one<{ id: string }>(
        'SELECT id FROM workers WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      )
    ).id,
    invoice: (
      await h.one<{ id: string }>(
        'SELECT id FROM invoices WHERE workspace_id = ? ORDER BY id LIMIT 1',
        WS,
      )
    ).id,
    supplier: (
      await h.one<{ code: string }>(
        `SELECT supplier_ref AS code FROM invoice_lines WHERE workspace_id = ? AND supplier_ref IS NOT NULL ORDER BY supplier_ref LIMIT 1`,
        WS,
      )
    ).code,
  };
}

const answers = new Map<string, Map<string, Answer>>();

for (const dialect of DIALECTS) {
  describe(`U+0000 in any string input answers as a store that could hold it would (${dialect})`, () => {
    let h: Harness;
    let ids: Ids;
    before(async () => {
      h = await startHarness({ dialect });
      ids = await idsOf(h);
      answers.set(dialect, new Map());
    });
    after(() => h.close());
    for (const c of CASES) {
      it(c.name, async () => {
        const answer = await c.send(h, ids);
        assert.ok(answer.status < 500, answer.raw);
        c.expect(answer, ids);
        answers.get(dialect)?.set(c.name, answer);
      });
    }
  });
}

describe(
  'U+0000 answers are the same on SQLite and PostgreSQL',
  { skip: DIALECTS.length < 2 && 'no PostgreSQL test cluster' },
  () => {
    for (const c of CASES) {
      it(c.name, () => {
        const sqlite = answers.get('sqlite')?.get(c.name);
        const postgres = answers.get('postgres')?.get(c.name);
        assert.ok(sqlite && postgres, 'both stores answered');
        assert.equal(postgres.status, sqlite.status);
        assertSameAnswer(
          postgres.body.data ?? postgres.body.error,
          sqlite.body.data ?? sqlite.body.error,
        );
      });
    }
  },
);

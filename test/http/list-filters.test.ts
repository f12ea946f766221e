import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { OPERATIONS } from '../../src/operations/registry.js';
import { get, qs, startHarness, WS, type Harness, DIALECTS } from '../support/harness.js';

/**
 * DESIGN §4.15: the lists' filters. The oracle is the unfiltered list the same token reads,
 * filtered here by the items' own fields: a filter keeps exactly what a reader would keep by hand,
 * in the same order, after the same visibility.
 */
type Item = Record<string, unknown> & { id: string };
type Params = Record<string, string>;

const FILTERED: Record<string, { path: string; filters: string[] }> = {
  list_invoices: {
    path: '/api/v1/invoices',
    filters: ['status', 'type', 'supplierId', 'number', 'periodFrom', 'periodTo'],
  },
  list_timesheets: {
    path: '/api/v1/timesheets',
    filters: ['status', 'workerId', 'periodFrom', 'periodTo'],
  },
  list_workers: { path: '/api/v1/workers', filters: ['status', 'onboardingState', 'ids'] },
  list_assignments: {
    path: '/api/v1/assignments',
    filters: ['status', 'workerId', 'supplierId'],
  },
  list_expenses: { path: '/api/v1/expenses', filters: ['status', 'workerId', 'supplierId'] },
  list_approval_statuses: { path: '/api/v1/approval-statuses', filters: ['state', 'subjectRef'] },
};

const textOf = (value: unknown) => (value as { value: string } | null)?.value ?? null;

/** Whether an item meets one filter, read off its own fields. */
function keeps(item: Item, name: string, value: string, codes: Map<string, string>): boolean {
  switch (name) {
    case 'supplierId':
      return codes.has(value) && textOf(item.supplierRef) === codes.get(value);
    case 'number':
      return textOf(item.number) === value;
    case 'periodFrom':
      return String(item.periodEnd) >= value;
    case 'periodTo':
      return String(item.periodStart) <= value;
    case 'ids':
      return value.split(',').includes(item.id);
    default:
      return item[name] === value;
  }
}

function shiftDate(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** Values worth trying for a filter: those the items hold, and a valid one none holds. */
function candidates(
  name: string,
  items: Item[],
  supplierIds: string[],
  enumerated: string[] | undefined,
): string[] {
  const distinct = (values: unknown[]) =>
    [...new Set(values.filter((v): v is string => typeof v === 'string'))].slice(0, 40);
  switch (name) {
    case 'supplierId':
      return [...supplierIds, 'sup_none'];
    case 'number':
      return [...distinct(items.map((i) => textOf(i.number))), 'INV-NONE'];
    case 'ids': {
      // Sets of the items' own ids (some another token's or none), and an id no record has.
      const ids = items.map((i) => i.id);
      return [
        ids.slice(0, 1).join(','),
        ids.slice(3, 40).join(','),
        ids.filter((_, i) => i % 7 === 0).slice(0, 100).join(','),
        [...ids.slice(-2), 'wkr_none', 'wkr_other_workspace'].join(','),
        'wkr_none',
      ].filter(Boolean);
    }
    case 'periodFrom':
    case 'periodTo': {
      const dates = distinct(items.flatMap((i) => [i.periodStart, i.periodEnd]));
      return [...dates, ...dates.slice(0, 10).map((d) => shiftDate(d, 3)), '2001-01-01'];
    }
    default:
      return enumerated ?? [...distinct(items.map((i) => i[name])), 'none_such'];
  }
}

/** The values an enumerated filter allows, as its operation's input schema lists them. */
function enumerationOf(operation: string, parameter: string): string[] | undefined {
  const op = OPERATIONS.find((o) => o.name === operation)!;
  const schema = op.input.properties[parameter] as { anyOf?: { const?: unknown }[] };
  const values = schema.anyOf?.map((branch) => branch.const);
  return values?.every((v) => typeof v === 'string') ? (values as string[]) : undefined;
}

async function walk(h: Harness, path: string, token: string, params: Params, limit: number) {
  const ids: string[] = [];
  const items: Item[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 5_000; pages++) {
    const answer = await get(h.app, `${path}${qs({ ...params, limit, cursor })}`, token);
    assert.equal(answer.status, 200, answer.raw);
    const page = answer.body.data;
    assert.ok(Array.isArray(page.items), answer.raw);
    items.push(...page.items);
    ids.push(...page.items.map((item: Item) => item.id));
    if (!page.hasMore) return { ids, items };
    assert.equal(page.items.length, limit, 'a page before the last is full');
    cursor = page.nextCursor;
  }
  throw new Error('pagination did not end');
}

for (const dialect of DIALECTS) {
  describe(`list filters (DESIGN §4.15) (${dialect})`, () => {
    let h: Harness;
    let codes: Map<string, string>;
    before(async () => {
      h = await startHarness({ dialect });
      const suppliers = await h.all<{ id: string; code: string }>(
        'SELECT id, code FROM suppliers WHERE workspace_id = ?',
        WS,
      );
      codes = new Map(suppliers.map((s) => [s.id, s.code]));
    });
    after(() => h.close());

    it('every list declares the filters of §4.15, and no other list has any', () => {
      for (const op of OPERATIONS) {
        const declared = Object.keys(op.input.properties).filter(
          (name) => !['limit', 'cursor', 'order'].includes(name),
        );
        if (op.name in FILTERED) assert.deepEqual(declared, FILTERED[op.name].filters, op.name);
        else if (op.name === 'list_audit_events')
          // The access trail's own (DESIGN §4.17), tested in test/audit/.
          assert.deepEqual(declared, ['since', 'until', 'worker', 'client', 'operation']);
        else if (op.name.startsWith('list_') && op.name !== 'list_saved_queries')
          assert.deepEqual(declared, op.name === 'list_changes' ? declared : [], op.name);
      }
    });

    for (const [name, { path, filters }] of Object.entries(FILTERED)) {
      for (const role of ['staff', 'worker', 'billing'] as const) {
        it(`${name} (${role}): filters keep exactly what the items say, in order, in both orders (property)`, async () => {
          const token = h.tokens[role];
          const all = (await walk(h, path, token, {}, 50)).items;
          // supplierId names only the suppliers this token can list.
          const suppliers = (await walk(h, '/api/v1/suppliers', token, {}, 50)).items;
          const listable = new Map(suppliers.map((s) => [s.id, textOf(s.code) as string]));
          const pick = (filter: string) =>
            fc.constantFrom(
              ...candidates(filter, all, [...codes.keys()], enumerationOf(name, filter)),
            );
          const chosen = fc
            .subarray(filters, { minLength: 1, maxLength: Math.min(3, filters.length) })
            .chain((names) => fc.tuple(...names.map((n) => pick(n).map((v) => [n, v] as const))));
          await fc.assert(
            fc.asyncProperty(
              chosen,
              fc.integer({ min: 5, max: 50 }),
              fc.constantFrom('asc', 'desc'),
              async (given, limit, order) => {
                const params = Object.fromEntries(given);
                if (params.periodFrom && params.periodTo && params.periodFrom > params.periodTo)
                  return;
                const expected = all
                  .filter((item) => given.every(([n, v]) => keeps(item, n, v, listable)))
                  .map((item) => item.id);
                if (order === 'desc') expected.reverse();
                const { ids } = await walk(h, path, token, { ...params, order }, limit);
                assert.deepEqual(ids, expected, JSON.stringify(params));
              },
            ),
            { numRuns: role === 'staff' ? 12 : 4 },
          );
        });
      }
    }

    it('supplierId is an id, never a code; a consolidated invoice is never kept', async () => {
      // A supplier with invoices of its own (not every supplier has one).
      const { code } = (await h.one<{ code: string }>(
        'SELECT supplier_ref AS code FROM invoices WHERE workspace_id = ? AND supplier_ref IS NOT NULL ORDER BY id LIMIT 1',
        WS,
      ))!;
      const id = [...codes.entries()].find(([, c]) => c === code)![0];
      const byId = await walk(h, '/api/v1/invoices', h.tokens.staff, { supplierId: id }, 50);
      assert.ok(byId.items.length > 0);
      assert.ok(byId.items.every((i) => textOf(i.supplierRef) === code));
      const byCode = await get(
        h.app,
        `/api/v1/invoices${qs({ supplierId: code })}`,
        h.tokens.staff,
      );
      assert.equal(byCode.status, 200);
      assert.deepEqual(byCode.body.data.items, []);
    });

    it('a billing entity filtering by another supplier gets nothing of it', async () => {
      const other = [...codes.entries()].find(([, code]) => code !== h.supplierCode)![0];
      for (const path of ['/api/v1/invoices', '/api/v1/expenses', '/api/v1/assignments']) {
        const page = await get(h.app, `${path}${qs({ supplierId: other })}`, h.tokens.billing);
        assert.deepEqual(page.body.data.items, [], path);
      }
    });

    it('finds one invoice by its number, and a supplier’s drafts of a month', async () => {
      const [invoice] = await h.all<{ id: string; number: string }>(
        `SELECT id, number FROM invoices WHERE workspace_id = ? AND number IS NOT NULL ORDER BY created_at DESC LIMIT 1`,
        WS,
      );
      const page = await get(
        h.app,
        `/api/v1/invoices${qs({ number: invoice.number })}`,
        h.tokens.staff,
      );
      assert.deepEqual(
        page.body.data.items.map((i: Item) => i.id),
        [invoice.id],
      );
      const [draft] = await h.all<{ supplier_ref: string; period_start: string }>(
        `SELECT supplier_ref, period_start FROM invoices WHERE workspace_id = ? AND status = 'draft' AND supplier_ref IS NOT NULL LIMIT 1`,
        WS,
      );
      const supplierId = [...codes.entries()].find(([, code]) => code === draft.supplier_ref)![0];
      const month = draft.period_start.slice(0, 7);
      const drafts = await walk(
        h,
        '/api/v1/invoices',
        h.tokens.staff,
        {
          status: 'draft',
          supplierId,
          periodFrom: `${month}-01`,
          periodTo:
            shiftDate(`${month}-28`, 3).slice(0, 7) === month ? `${month}-31` : `${month}-28`,
        },
        50,
      );
      assert.ok(drafts.items.length > 0);
      for (const item of drafts.items) {
        assert.equal(item.status, 'draft');
        assert.equal(textOf(item.supplierRef), draft.supplier_ref);
      }
    });

    describe('strictness: 404 not_found naming the parameter', () => {
      const cases: [string, string, string][] = [
        ['an unknown enumerated value', '/api/v1/invoices?status=paid', 'status'],
        ['an empty value', '/api/v1/timesheets?status=', 'status'],
        ['an empty id', '/api/v1/invoices?supplierId=', 'supplierId'],
        ['a date that is no date', '/api/v1/invoices?periodFrom=2024-02-30', 'periodFrom'],
        ['a date in another form', '/api/v1/timesheets?periodTo=20240201', 'periodTo'],
        ['a repeated filter', '/api/v1/invoices?status=draft&status=void', 'status'],
        ['a filter of another list', '/api/v1/timesheets?number=INV-1', 'unknown parameter'],
        [
          'a filter on a list without filters',
          '/api/v1/suppliers?status=active',
          'unknown parameter',
        ],
        [
          'a period that ends before it starts',
          '/api/v1/invoices?periodFrom=2024-03-01&periodTo=2024-02-01',
          'periodFrom',
        ],
        ['an id that is not id-shaped', '/api/v1/assignments?workerId=a%20b', 'workerId'],
        ['no ids', '/api/v1/workers?ids=', 'ids'],
        ['an empty id among ids', '/api/v1/workers?ids=wkr_1,,wkr_2', 'ids'],
        ['an id among ids that is not id-shaped', '/api/v1/workers?ids=wkr_1,a%20b', 'ids'],
        ['an id named twice', '/api/v1/workers?ids=wkr_1,wkr_2,wkr_1', 'ids'],
        ['ids repeated', '/api/v1/workers?ids=wkr_1&ids=wkr_2', 'ids'],
        [
          'more than 100 ids',
          `/api/v1/workers?ids=${Array.from({ length: 101 }, (_, i) => `wkr_${i}`).join(',')}`,
          'ids',
        ],
      ];
      for (const [what, path, parameter] of cases) {
        it(what, async () => {
          const answer = await get(h.app, path, h.tokens.staff);
          assert.equal(answer.status, 404, answer.raw);
          assert.equal(answer.body.error.code, 'not_found');
          assert.match(answer.body.error.message, new RegExp(parameter));
        });
      }
    });

    it('ids: named workers in the list’s order, paged, another workspace’s left out', async () => {
      const all = (await walk(h, '/api/v1/workers', h.tokens.staff, {}, 50)).items;
      const chosen = all.slice(0, 99).map((w) => w.id);
      assert.ok(chosen.length > 10, 'the seed has workers to name');
      const [foreign] = await h.all<{ id: string }>(
        'SELECT id FROM workers WHERE workspace_id <> ? LIMIT 1',
        WS,
      );
      // A hundred ids at most, in any order: one of another workspace, the rest this one's.
      const asked = [...chosen, foreign?.id ?? 'wkr_none'].reverse().join(',');
      const { ids } = await walk(h, '/api/v1/workers', h.tokens.staff, { ids: asked }, 10);
      assert.deepEqual(ids, chosen);
      // A cursor is bound to these ids, as every cursor to its filters.
      const first = await get(
        h.app,
        `/api/v1/workers${qs({ ids: asked, limit: 10 })}`,
        h.tokens.staff,
      );
      const other = await get(
        h.app,
        `/api/v1/workers${qs({ ids: chosen.slice(1).join(','), limit: 10, cursor: first.body.data.nextCursor })}`,
        h.tokens.staff,
      );
      assert.equal(other.body.data.code, 'invalid_cursor', other.raw);
      // A worker token finds itself among the ids, and nobody else.
      const own = await get(
        h.app,
        `/api/v1/workers${qs({ ids: [...chosen.slice(0, 5).filter((id) => id !== h.workerId), h.workerId].join(',') })}`,
        h.tokens.worker,
      );
      assert.deepEqual(
        own.body.data.items.map((i: Item) => i.id),
        [h.workerId],
      );
    });

    describe('a cursor is bound to its filters', () => {
      let cursor: string;
      before(async () => {
        const page = await get(h.app, '/api/v1/timesheets?status=approved&limit=2', h.tokens.staff);
        cursor = page.body.data.nextCursor;
        assert.equal(typeof cursor, 'string');
      });
      it('continues with the same filters', async () => {
        const page = await get(
          h.app,
          `/api/v1/timesheets${qs({ status: 'approved', limit: 2, cursor })}`,
          h.tokens.staff,
        );
        assert.equal(page.body.data.items.length, 2);
        assert.ok(page.body.data.items.every((i: Item) => i.status === 'approved'));
      });
      for (const [what, params] of [
        ['without them', {}],
        ['with another value', { status: 'rejected' }],
        ['with one more', { status: 'approved', periodFrom: '2020-01-01' }],
      ] as const) {
        it(`is invalid_cursor ${what}`, async () => {
          const page = await get(
            h.app,
            `/api/v1/timesheets${qs({ ...params, limit: 2, cursor })}`,
            h.tokens.staff,
          );
          assert.equal(page.status, 200, page.raw);
          assert.equal(page.body.data.status, 'refused');
          assert.equal(page.body.data.code, 'invalid_cursor');
        });
      }
      it('an unfiltered cursor is invalid with a filter', async () => {
        const plain = (await get(h.app, '/api/v1/timesheets?limit=2', h.tokens.staff)).body.data
          .nextCursor;
        const page = await get(
          h.app,
          `/api/v1/timesheets${qs({ status: 'approved', cursor: plain })}`,
          h.tokens.staff,
        );
        assert.equal(page.body.data.code, 'invalid_cursor');
      });
    });
  });
}

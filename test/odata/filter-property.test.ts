/**
 * The `$filter` grammar and compiler, by property (fast-check): a random filter over Invoices
 * keeps exactly the records the same predicate, evaluated here by OData's rules (two-valued: a
 * comparison with null is false, `ne` true), keeps of REST's answer, on both stores; and nothing a
 * client writes reaches SQL as text: filters of one shape compile to one statement whatever their
 * literals, which travel as parameters only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { SETS_BY_NAME, type EntitySet } from '../../src/odata/entity-model.js';
import { parseFilter } from '../../src/odata/filter-grammar.js';
import { filterPredicate } from '../../src/odata/filter-sql.js';
import { postgresDialect } from '../../src/store/postgres/postgres-dialect.js';
import { sqliteDialect } from '../../src/store/sqlite/sqlite-dialect.js';
import { DIALECTS, get, startHarness, type Harness } from '../support/harness.js';

type Value = string | number | boolean | null;
type Rec = Record<string, Value>;

/** A filter as both a tree to evaluate and the text a client sends. */
interface Filter {
  text: string;
  holds(record: Rec): boolean;
}

const OPS = ['eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const;
const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Code-point order, as both stores compare text. */
function compare(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [[...String(a)], [...String(b)]].map((cs) => cs.map((c) => c.codePointAt(0)!));
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

function comparison(
  property: string,
  op: (typeof OPS)[number],
  literal: Value,
  text: string,
): Filter {
  return {
    text: `${property} ${op} ${text}`,
    holds(record) {
      const v = record[property];
      if (literal === null || v === null) {
        const same = v === literal;
        return op === 'eq' ? same : op === 'ne' ? !same : false;
      }
      const c = compare(v, literal);
      return { eq: c === 0, ne: c !== 0, gt: c > 0, ge: c >= 0, lt: c < 0, le: c <= 0 }[op];
    },
  };
}

/** Leaves over Invoices' properties, with literals drawn from the stored values and beyond. */
function leaves(records: Rec[]): fc.Arbitrary<Filter> {
  const valuesOf = (p: string) => [...new Set(records.map((r) => r[p]))];
  const texts = ['status', 'type', 'currency', 'number', 'supplierRef', 'groupKey'];
  const textLiteral = (p: string) =>
    fc.oneof(
      fc.constantFrom(...valuesOf(p).filter((v): v is string => typeof v === 'string')),
      fc.string({ maxLength: 6, unit: 'grapheme' }),
      fc.constantFrom("' or 1=1 --", "x'); DROP TABLE invoices; --", '%', '_', ''),
    );
  const text = fc
    .constantFrom(...texts)
    .chain((p) =>
      fc
        .tuple(fc.constantFrom(...OPS), textLiteral(p))
        .map(([op, s]) => comparison(p, op, s, quote(s))),
    );
  const nulls = fc
    .tuple(
      fc.constantFrom('number', 'supplierRef', 'issuedAt', 'correctsInvoiceRef'),
      fc.constantFrom(...OPS),
    )
    .map(([p, op]) => comparison(p, op, null, 'null'));
  const cents = fc
    .tuple(
      fc.constantFrom(...OPS),
      fc.oneof(
        fc.constantFrom(...(valuesOf('totalCents') as number[])),
        fc.integer({ min: -10_000_000, max: 10_000_000 }),
      ),
    )
    .map(([op, n]) => comparison('totalCents', op, n, String(n)));
  const dates = fc
    .tuple(
      fc.constantFrom('periodStart', 'periodEnd'),
      fc.constantFrom(...OPS),
      fc.constantFrom(...(valuesOf('periodStart') as string[])),
    )
    .map(([p, op, d]) => comparison(p, op, d, d));
  const times = fc
    .tuple(
      fc.constantFrom('issuedAt', 'createdAt'),
      fc.constantFrom(...OPS),
      fc.constantFrom(...(valuesOf('createdAt') as string[])),
    )
    .map(([p, op, t]) => comparison(p, op, t, t));
  const functions = fc
    .tuple(
      fc.constantFrom('contains', 'startswith', 'endswith'),
      fc.constantFrom('number', 'groupKey', 'supplierRef'),
      fc.string({ maxLength: 3 }),
    )
    .map(([fn, p, s]): Filter => ({
      text: `${fn}(${p},${quote(s)})`,
      holds: (r) => {
        const v = r[p];
        if (typeof v !== 'string') return false;
        return fn === 'contains'
          ? v.includes(s)
          : fn === 'startswith'
            ? v.startsWith(s)
            : v.endsWith(s);
      },
    }));
  const within = fc
    .tuple(
      fc.constantFrom('status', 'currency', 'supplierRef'),
      fc.array(
        fc.oneof(
          fc.constant(null),
          fc.constantFrom('draft', 'issued', 'void', 'USD', 'EUR', 'JPY'),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    )
    .map(([p, list]): Filter => ({
      text: `${p} in (${list.map((v) => (v === null ? 'null' : quote(v))).join(',')})`,
      holds: (r) => (list as (string | null)[]).includes(r[p] as string | null),
    }));
  // Amounts (`total`): every currency of the seed has 2 minor units; compared exactly, in integers.
  const amounts = fc
    .tuple(
      fc.constantFrom(...OPS),
      fc.oneof(
        fc.constantFrom(...(valuesOf('totalCents') as number[])),
        fc.integer({ min: -1e9, max: 1e9 }),
      ),
      fc.integer({ min: 0, max: 3 }),
    )
    .map(([op, n, shift]): Filter => {
      const digits = String(Math.abs(n)).padStart(shift + 1, '0');
      const literal = `${n < 0 ? '-' : ''}${shift === 0 ? digits : `${digits.slice(0, -shift)}.${digits.slice(-shift)}`}`;
      return {
        text: `total ${op} ${literal}`,
        holds: (r) => {
          const c = BigInt(r.totalCents as number) * 10n ** BigInt(shift) - BigInt(n) * 100n;
          return { eq: c === 0n, ne: c !== 0n, gt: c > 0n, ge: c >= 0n, lt: c < 0n, le: c <= 0n }[
            op
          ];
        },
      };
    });
  return fc.oneof(text, nulls, cents, dates, times, functions, within, amounts);
}

function filters(records: Rec[]): fc.Arbitrary<Filter> {
  const { tree } = fc.letrec<{ tree: Filter }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaves(records),
      fc.tuple(tie('tree'), fc.constantFrom('and', 'or'), tie('tree')).map(([a, op, b]) => ({
        text: `(${a.text}) ${op} (${b.text})`,
        holds: (r: Rec) => (op === 'and' ? a.holds(r) && b.holds(r) : a.holds(r) || b.holds(r)),
      })),
      tie('tree').map((a) => ({ text: `not (${a.text})`, holds: (r: Rec) => !a.holds(r) })),
    ),
  }));
  return tree;
}

const plain = (record: Record<string, unknown>): Rec =>
  Object.fromEntries(
    Object.entries(record).map(([k, v]) => [
      k,
      v !== null && typeof v === 'object' ? (v as { value: string }).value : (v as Value),
    ]),
  );

for (const dialect of DIALECTS)
  describe(`$filter keeps what the same predicate keeps of REST's answer (${dialect})`, () => {
    let h: Harness;
    let records: Rec[];
    before(async () => {
      h = await startHarness({ dialect });
      records = [];
      let cursor: string | null = null;
      do {
        const page = await get(
          h.app,
          `/api/v1/invoices?limit=50${cursor ? `&cursor=${cursor}` : ''}`,
          h.tokens.staff,
        );
        records.push(...page.body.data.items.map(plain));
        cursor = page.body.data.nextCursor;
      } while (cursor);
    });
    after(() => h?.close());

    it('random filters over Invoices', async () => {
      await fc.assert(
        fc.asyncProperty(filters(records), async (filter) => {
          const url = `/odata/v4/Invoices?$select=id&$filter=${encodeURIComponent(filter.text)}`;
          const answer = await get(h.app, url, h.tokens.staff, {
            prefer: 'odata.maxpagesize=10000',
          });
          assert.equal(answer.status, 200, `${filter.text}: ${answer.raw}`);
          assert.deepEqual(
            answer.body.value.map((v: { id: string }) => v.id),
            records.filter((r) => filter.holds(r)).map((r) => r.id),
            filter.text,
          );
        }),
        { numRuns: 150 },
      );
    });
  });

describe('nothing a client writes reaches SQL as text', () => {
  const invoices = SETS_BY_NAME.get('Invoices') as EntitySet;
  const compile = (text: string, dialect = sqliteDialect) =>
    filterPredicate(parseFilter(text), (name) => invoices.byName.get(name))(dialect);
  const HOSTILE = ["'; DROP TABLE invoices; --", 't.id = t.id OR 1', '?', '$1', '/*', '"'];
  const hostile = fc.oneof(
    fc.string({ maxLength: 12, unit: 'binary' }),
    fc.constantFrom(...HOSTILE),
  );

  it('filters of one shape compile to one statement, their literals only in the parameters', () => {
    fc.assert(
      fc.property(
        hostile,
        hostile,
        fc.constantFrom('contains', 'startswith', 'endswith', 'eq', 'in', 'gt'),
        (a, b, form) => {
          const text = (s: string) =>
            form === 'eq' || form === 'gt'
              ? `groupKey ${form} ${quote(s)} or number ne ${quote(s)}`
              : form === 'in'
                ? `status in (${quote(s)}, 'draft')`
                : `not ${form}(groupKey,${quote(s)})`;
          for (const dialect of [sqliteDialect, postgresDialect]) {
            const [x, y] = [compile(text(a), dialect), compile(text(b), dialect)];
            assert.equal(x.sql, y.sql);
            assert.ok(x.params.includes(a) && y.params.includes(b));
            // One statement for both: neither literal shaped it. (A random literal may, by
            // chance, be a piece of a column's name: only SQL no column name holds is looked for.)
            for (const s of [a, b])
              if (HOSTILE.includes(s) && s.length > 2) assert.ok(!x.sql.includes(s));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

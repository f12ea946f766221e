import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as compare from '../../web/src/report/compare.js';
import * as csv from '../../web/src/csv.js';
import * as currency from '../../web/src/report/currency.js';
import * as format from '../../web/src/format.js';
import * as names from '../../web/src/session/names.js';
import * as periods from '../../web/src/report/periods.js';

/**
 * The page's own logic, in Node (web/src/ compiled with the tests; what it does with the DOM is
 * left to the browser tests): calendar buckets and their completeness, the previous period, CSV
 * text (quoting and formula injection), money kept per currency, dashboard titles.
 */
const day = fc
  .integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31) })
  .map((ms) => new Date(ms - (ms % 86_400_000)).toISOString().slice(0, 10));

describe('periods', () => {
  it('ends each bucket on its last day', () => {
    assert.equal(periods.bucketEnd('2024-02-01', 'month'), '2024-02-29');
    assert.equal(periods.bucketEnd('2026-04-01', 'quarter'), '2026-06-30');
    assert.equal(periods.bucketEnd('2026-01-01', 'year'), '2026-12-31');
    assert.equal(periods.bucketEnd('2026-03-30', 'week'), '2026-04-05');
    assert.equal(periods.bucketEnd('2026-03-30', null), '2026-03-30');
  });
  it('marks a bucket cut by the range or not over yet as incomplete', () => {
    const range = { from: '2026-04-01', to: '2026-06-30' };
    assert.equal(periods.isIncomplete('2026-03-30', 'week', range, '2026-07-10'), true);
    assert.equal(periods.isIncomplete('2026-04-06', 'week', range, '2026-07-10'), false);
    assert.equal(periods.isIncomplete('2026-06-01', 'month', range, '2026-06-15'), true);
    assert.equal(periods.isIncomplete('2026-05-01', 'month', range, '2026-06-15'), false);
    assert.equal(periods.isIncomplete('2026-05-01', 'month', null, '2026-06-15'), false);
  });
  it('names buckets as people do', () => {
    assert.equal(periods.bucketLabel('2026-04-01', 'month'), 'Apr 2026');
    assert.equal(periods.bucketLabel('2026-04-01', 'quarter'), 'Q2 2026');
    assert.equal(periods.bucketLabel('2026-01-01', 'year'), '2026');
    assert.equal(periods.bucketLabel('2026-03-30', 'week'), 'week of 2026-03-30');
    assert.equal(periods.bucketLabel('2026-03-30', null), '2026-03-30');
  });
  it('goes back a whole number of months for calendar periods', () => {
    assert.deepEqual(periods.previousRange({ from: '2026-01-01', to: '2026-03-31' }), {
      from: '2025-10-01',
      to: '2025-12-31',
    });
    assert.deepEqual(periods.previousRange({ from: '2024-03-01', to: '2024-03-31' }), {
      from: '2024-02-01',
      to: '2024-02-29',
    });
    assert.deepEqual(periods.previousRange({ from: '2026-01-01', to: '2026-12-31' }), {
      from: '2025-01-01',
      to: '2025-12-31',
    });
  });
  it('gives any range a previous period of the same length that ends the day before it', () => {
    fc.assert(
      fc.property(day, fc.integer({ min: 0, max: 400 }), (from, length) => {
        const to = periods.addDays(from, length);
        const before = periods.previousRange({ from, to });
        assert.equal(periods.addDays(before.to, 1), from);
        if (!(from.endsWith('-01') && periods.addDays(to, 1).endsWith('-01')))
          assert.equal(periods.addDays(before.from, length), before.to);
      }),
    );
  });
});

describe('comparing with the previous period', () => {
  const result = (from: string, to: string, rows: Record<string, unknown>[]) =>
    ({
      status: 'ok',
      rows,
      columns: ['invoice_period', 'spend'],
      truncated: false,
      truncatedBy: null,
      nextCursor: null,
      catalogVersion: 'cv1-x',
      metricDefinitions: [{ key: 'spend', label: 'Spend', unit: 'cents' }],
      semanticQuery: {
        metrics: ['spend'],
        dimensions: ['invoice_period'],
        timeGrain: 'month',
        timeRange: { from, to },
      },
    }) as never;
  it('pairs buckets by their place in the period, whatever buckets have no rows', () => {
    // February has no row: March is still set against December, not November.
    const now = result('2026-01-01', '2026-03-31', [
      { invoice_period: '2026-01-01', spend: 1 },
      { invoice_period: '2026-03-01', spend: 3 },
    ]);
    const before = result('2025-10-01', '2025-12-31', [
      { invoice_period: '2025-10-01', spend: 10 },
      { invoice_period: '2025-11-01', spend: 20 },
      { invoice_period: '2025-12-01', spend: 30 },
    ]);
    const earlier = compare.previousRowOf(now, before, new Set(['invoice_period']));
    assert.equal(earlier({ invoice_period: '2026-01-01' })?.spend, 10);
    assert.equal(earlier({ invoice_period: '2026-03-01' })?.spend, 30);
    const at = compare.previousAtBucket(now, before, 'invoice_period');
    assert.equal(at('2026-02-01')?.spend, 20);
  });
  it("counts weeks from the Monday of the range's first day", () => {
    const range = { from: '2026-04-01', to: '2026-06-30' };
    assert.equal(periods.bucketStart('2026-04-01', 'week'), '2026-03-30');
    assert.equal(periods.bucketIndex('2026-03-30', 'week', range), 0);
    assert.equal(periods.bucketIndex('2026-04-13', 'week', range), 2);
    assert.equal(
      periods.bucketIndex('2026-05-01', 'quarter', { from: '2026-04-01', to: '2026-06-30' }),
      0,
    );
  });
  it('sets a period so far against the same days of the one before', () => {
    const june = { from: '2026-06-01', to: '2026-06-30' };
    assert.deepEqual(periods.comparableRange(june, '2026-06-10'), {
      range: { from: '2026-05-01', to: '2026-05-10' },
      sameDays: true,
    });
    assert.deepEqual(periods.comparableRange(june, '2026-07-01'), {
      range: { from: '2026-05-01', to: '2026-05-31' },
      sameDays: false,
    });
    assert.equal(periods.isOngoing(june, '2026-06-30'), true);
    assert.equal(periods.isOngoing(june, '2026-07-01'), false);
  });
});

describe('CSV', () => {
  it('quotes what needs quoting and keeps numbers as numbers', () => {
    assert.equal(
      csv.csvOf(
        ['Name', 'Total'],
        [
          ['Acme, "the" best', 12.5],
          ['line\nbreak', null],
        ],
      ),
      'Name,Total\r\n"Acme, ""the"" best",12.5\r\n"line\nbreak",\r\n',
    );
  });
  it('never lets a cell start a spreadsheet formula', () => {
    for (const hostile of ['=HYPERLINK("http://x")', '+1+1', '-2+3', '@SUM(A1)', '\tx', '\rx'])
      assert.ok(
        csv
          .csvOf(['a'], [[hostile]])
          .split('\r\n')[1]
          .replace(/^"/, '')
          .startsWith("'"),
        hostile,
      );
    assert.equal(csv.csvOf(['a'], [[-2]]), 'a\r\n-2\r\n', 'a negative number stays a number');
    assert.equal(
      csv.csvOf(['a'], [['-GBP 15,918.00']]),
      'a\r\n"\'-GBP 15,918.00"\r\n',
      'a spreadsheet reads "-GBP…" as a formula: guarded',
    );
    assert.equal(csv.csvOf(['a'], [['-12.5']]), 'a\r\n-12.5\r\n');
    assert.ok(csv.csvOf(['a'], [['-1+cmd|x']]).includes("'-1+cmd"), 'not an amount: guarded');
  });
  it('makes file names of titles', () => {
    assert.equal(csv.fileNameOf('Invoices by status'), 'Invoices-by-status');
    assert.equal(csv.fileNameOf('<script>'), 'script');
    assert.equal(csv.fileNameOf('דוח'), 'report');
  });
});

describe('money', () => {
  const result = (rows: Record<string, unknown>[], columns: string[], filters: object[] = []) =>
    ({
      status: 'ok',
      rows,
      columns,
      truncated: false,
      truncatedBy: null,
      nextCursor: null,
      catalogVersion: 'cv1-x',
      metricDefinitions: [{ key: 'spend', label: 'Spend', unit: 'cents' }],
      semanticQuery: { metrics: ['spend'], dimensions: columns.slice(0, -1), filters },
    }) as never;
  it('splits rows by currency and never adds currencies together', () => {
    const parts = currency.splitByCurrency(
      result(
        [
          { supplier: 'A', currency: 'USD', spend: 100 },
          { supplier: 'A', currency: 'EUR', spend: 7 },
          { supplier: 'B', currency: 'USD', spend: 5 },
        ],
        ['supplier', 'currency', 'spend'],
      ),
    );
    assert.deepEqual(
      parts.map(([code, part]) => [code, part.rows.length, part.columns]),
      [
        ['EUR', 1, ['supplier', 'spend']],
        ['USD', 2, ['supplier', 'spend']],
      ],
    );
  });
  it('knows the currency a filter fixes, and a mixed result when there is none', () => {
    const mixed = result([{ supplier: 'A', spend: 1 }], ['supplier', 'spend']);
    assert.equal(currency.mixesCurrencies(mixed), true);
    const fixed = result(
      [{ supplier: 'A', spend: 1 }],
      ['supplier', 'spend'],
      [{ dimension: 'currency', operator: 'eq', values: ['GBP'] }],
    );
    assert.equal(currency.mixesCurrencies(fixed), false);
    assert.equal(currency.currencyReader(fixed)({}), 'GBP');
    const two = result(
      [{ supplier: 'A', spend: 1 }],
      ['supplier', 'spend'],
      [{ dimension: 'currency', operator: 'in', values: ['GBP', 'EUR'] }],
    );
    assert.equal(currency.mixesCurrencies(two), true);
  });
  it('keeps a figure past 2^53 exact: formatted and written from its digits, never a Number', () => {
    const cents = '123456789012345678901';
    assert.equal(
      format.formatMoney(cents, 'USD').replace(/\s/g, ' '),
      'USD 1,234,567,890,123,456,789.01',
    );
    assert.equal(format.formatMoney('-5', 'EUR').replace(/\s/g, ' '), '-EUR 0.05');
    assert.equal(format.unitsFigure(cents), '1234567890123456789.01');
    assert.equal(format.unitsFigure(12345), 123.45);
    assert.equal(format.formatOf('count')('9007199254740993'), '9,007,199,254,740,993');
  });
  it('formats money with its currency, and a change as people read it', () => {
    assert.equal(format.formatMoney(123456, 'EUR').replace(/\s/g, ' '), 'EUR 1,234.56');
    assert.equal(format.formatOf('ratio')(0.078), '7.8%');
    assert.equal(format.formatChange('count', 12, 10), '+20%');
    assert.equal(format.formatChange('ratio', 0.1, 0.08), '+2 pts');
    assert.equal(format.formatChange('count', 3, 0), 'new');
    assert.equal(format.formatChange('count', null, 1), '—');
  });
});

describe('dashboard titles', () => {
  it('reads an id as words', () => {
    assert.equal(names.dashboardTitle('program-operations'), 'Program operations');
    assert.equal(names.dashboardTitle('dash_bus_operations'), 'Bus operations');
    assert.equal(names.dashboardTitle('finance'), 'Finance');
    assert.equal(names.dashboardTitle('dash'), 'Dash');
  });
});

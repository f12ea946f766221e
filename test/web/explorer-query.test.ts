import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  offeredValuesOf,
  VALUES_CAP,
  valuesQueryOf,
  valuesSource,
  type RunQuery,
} from '../../web/src/explorer/dimension-values.js';
import {
  bodyOf,
  chooseMetrics,
  emptyState,
  filterBodyValues,
  mixesCurrencies,
  newFilter,
  orderKeys,
  problemsOf,
  splitApplies,
  stateOfBody,
  withDimension,
  withOperator,
  withValueAt,
  withValuePicked,
  type ExplorerState,
} from '../../web/src/explorer/explorer-query.js';
import type { ExplorerCatalog } from '../../web/src/types.js';
import { refusalWords } from '../../web/src/report/refusal-words.js';
import { REFUSAL_MESSAGES } from '../../src/semantic/refusals.js';

/**
 * The explorer's model apart from the page (web/src/explorer-query.ts, dimension-values.ts,
 * refusal-words.ts): filters picked and typed, the currency split and its round trip through
 * the address, the query that lists a dimension's values, and a refusal in words.
 */

const LINES = ['invoice_period', 'supplier', 'currency', 'invoice_status'];
const ENTRIES = ['work_date', 'supplier', 'worker_type'];
const catalog: ExplorerCatalog = {
  catalogVersion: 'cv1-test',
  metrics: [
    { key: 'spend', label: 'Spend', unit: 'cents', dimensions: LINES, evaluative: false },
    { key: 'line_score', label: 'Score', unit: 'ratio', dimensions: LINES, evaluative: true },
    { key: 'line_count', label: 'Lines', unit: 'count', dimensions: LINES, evaluative: false },
    { key: 'hours', label: 'Hours', unit: 'hours', dimensions: ENTRIES, evaluative: false },
  ],
  dimensions: [
    { key: 'work_date', label: 'Work date', type: 'time' },
    { key: 'invoice_period', label: 'Invoice period', type: 'time' },
    { key: 'supplier', label: 'Supplier', type: 'categorical' },
    { key: 'currency', label: 'Currency', type: 'categorical' },
    { key: 'invoice_status', label: 'Invoice status', type: 'categorical' },
    { key: 'worker_type', label: 'Worker type', type: 'categorical' },
  ],
};

const state = (patch: Partial<ExplorerState>): ExplorerState => ({ ...emptyState(), ...patch });
const envelope = (value: string) => ({
  kind: 'vms.provenance' as const,
  trust: 'untrusted-third-party',
  value,
});

describe('filters: values picked and typed', () => {
  it('sends the picked values, then the typed ones, each once', () => {
    const f = { ...newFilter('supplier'), operator: 'in' as const };
    const picked = withValuePicked(withValuePicked(f, 'Acme, Inc.', true), 'Beta', true);
    const typed = { ...picked, typed: ' Gamma , Beta,, ' };
    assert.deepEqual(filterBodyValues(typed), ['Acme, Inc.', 'Beta', 'Gamma']);
    assert.deepEqual(filterBodyValues(withValuePicked(typed, 'Acme, Inc.', false)), [
      'Beta',
      'Gamma',
    ]);
  });

  it('keeps picked values up to the new operator’s count, and none from another dimension', () => {
    const many = { ...newFilter('supplier'), operator: 'in' as const, values: ['a', 'b', 'c'] };
    assert.deepEqual(withOperator(catalog, many, 'eq').values, ['a']);
    assert.deepEqual(withOperator(catalog, many, 'between').values, ['a', 'b']);
    assert.deepEqual(
      withOperator(catalog, withValueAt(newFilter('supplier'), 1, 'z'), 'in').values,
      ['z'],
    );
    assert.deepEqual(withDimension({ ...many, typed: 'x' }, 'currency'), newFilter('currency'));
  });

  it('turns the dates of a time filter into text when in takes any number', () => {
    const between = withValueAt(
      withValueAt({ ...newFilter('work_date'), operator: 'between' }, 0, '2026-01-01'),
      1,
      '2026-01-31',
    );
    const inList = withOperator(catalog, between, 'in');
    assert.deepEqual(inList.values, []);
    assert.equal(inList.typed, '2026-01-01, 2026-01-31');
    assert.deepEqual(filterBodyValues(inList), ['2026-01-01', '2026-01-31']);
  });

  it('asks for a value while a filter has none', () => {
    const s = state({ metrics: ['hours'], filters: [newFilter('supplier')] });
    assert.deepEqual(problemsOf(s), ['Give a value to the filter on supplier.']);
    assert.deepEqual(problemsOf({ ...s, filters: [{ ...newFilter('supplier'), typed: 'x' }] }), []);
  });

  it('reads filters back from an address: values picked, a time filter’s non-dates typed', () => {
    const body = {
      query: {
        metrics: ['spend'],
        dimensions: ['supplier', 'currency'],
        filters: [
          { dimension: 'supplier', operator: 'in', values: ['Acme, Inc.', 'Beta'] },
          { dimension: 'invoice_period', operator: 'gte', values: ['2026-01-01'] },
          { dimension: 'invoice_period', operator: 'lte', values: ['abc'] },
          { dimension: 'invoice_period', operator: 'in', values: ['2026-01-01', '2026-02-01'] },
        ],
      },
    };
    const read = stateOfBody(catalog, body);
    assert.deepEqual(
      read.filters.map((f) => [f.values, f.typed]),
      [
        [['Acme, Inc.', 'Beta'], ''],
        [['2026-01-01'], ''],
        [[], 'abc'],
        [[], '2026-01-01, 2026-02-01'],
      ],
    );
    assert.deepEqual(bodyOf(catalog, read), body, 'the same body again');
  });
});

describe('money: split by currency', () => {
  it('is ticked for a new query and adds currency to the body', () => {
    const s = chooseMetrics(catalog, emptyState(), ['spend']);
    assert.equal(splitApplies(catalog, s), true);
    assert.equal(s.splitCurrency, true);
    assert.deepEqual(bodyOf(catalog, s).query.dimensions, ['currency']);
    assert.deepEqual(bodyOf(catalog, { ...s, dimensions: ['supplier'] }).query.dimensions, [
      'supplier',
      'currency',
    ]);
    assert.equal(mixesCurrencies(catalog, s), false);
    assert.ok(orderKeys(catalog, s).includes('currency'), 'the result may be ordered by it');
  });

  it('does not apply without money, or with currency chosen as a dimension', () => {
    assert.equal(
      splitApplies(catalog, chooseMetrics(catalog, emptyState(), ['line_count'])),
      false,
    );
    assert.equal(splitApplies(catalog, chooseMetrics(catalog, emptyState(), ['hours'])), false);
    const chosen = state({ metrics: ['spend'], dimensions: ['currency', 'supplier'] });
    assert.equal(splitApplies(catalog, chosen), false);
    assert.deepEqual(bodyOf(catalog, chosen).query.dimensions, ['currency', 'supplier']);
  });

  it('warns when unticked, unless a filter keeps one currency alone', () => {
    const s = { ...chooseMetrics(catalog, emptyState(), ['spend']), splitCurrency: false };
    assert.equal(bodyOf(catalog, s).query.dimensions, undefined);
    assert.equal(mixesCurrencies(catalog, s), true);
    const one = { ...newFilter('currency'), values: ['EUR'] };
    assert.equal(mixesCurrencies(catalog, { ...s, filters: [one] }), false);
    const two = { ...one, operator: 'in' as const, values: ['EUR', 'USD'] };
    assert.equal(mixesCurrencies(catalog, { ...s, filters: [two] }), true);
  });

  it('reads a body without currency back unsplit; only a fresh choice of money ticks it', () => {
    const body = { query: { metrics: ['spend'], dimensions: ['supplier'] } };
    const read = stateOfBody(catalog, body);
    assert.equal(read.splitCurrency, false);
    assert.equal(mixesCurrencies(catalog, read), true);
    assert.deepEqual(bodyOf(catalog, read), body);
    // Another money metric beside it is no fresh choice; none then money again is.
    assert.equal(chooseMetrics(catalog, read, ['spend', 'line_count']).splitCurrency, false);
    const none = chooseMetrics(catalog, read, []);
    assert.equal(chooseMetrics(catalog, none, ['spend']).splitCurrency, true);
  });

  it('reads currency last beside money back as the split, and the body stays the same', () => {
    for (const dimensions of [['currency'], ['supplier', 'currency'], ['currency', 'supplier']]) {
      const body = { query: { metrics: ['spend'], dimensions } };
      const read = stateOfBody(catalog, body);
      assert.deepEqual(bodyOf(catalog, read), body, dimensions.join());
    }
    const read = stateOfBody(catalog, { query: { metrics: ['spend'], dimensions: ['currency'] } });
    assert.deepEqual([read.dimensions, read.splitCurrency], [[], true]);
    const order = {
      query: {
        metrics: ['spend'],
        dimensions: ['currency'],
        order: [{ key: 'currency', direction: 'asc' }],
      },
    };
    assert.deepEqual(bodyOf(catalog, stateOfBody(catalog, order)), order, 'its order kept');
  });
});

describe('dimension values: found through run_semantic_query', () => {
  it('asks with a count metric of the view, grouped and ordered by the dimension, capped', () => {
    assert.deepEqual(valuesQueryOf(catalog, ['spend'], 'invoice_status'), {
      query: {
        metrics: ['line_count'],
        dimensions: ['invoice_status'],
        order: [{ key: 'invoice_status', direction: 'asc' }],
        limit: VALUES_CAP,
      },
    });
    assert.equal(VALUES_CAP, 200);
  });

  it('uses any queryable metric of the view when it has no count, never an evaluative one', () => {
    assert.deepEqual(valuesQueryOf(catalog, ['hours'], 'worker_type')?.query.metrics, ['hours']);
    const noCount = {
      ...catalog,
      metrics: catalog.metrics.filter((m) => m.key !== 'line_count'),
    };
    assert.deepEqual(valuesQueryOf(noCount, ['spend'], 'supplier')?.query.metrics, ['spend']);
  });

  it('asks nothing for a time dimension (dates are typed or picked) or one of another view', () => {
    assert.equal(valuesQueryOf(catalog, ['spend'], 'invoice_period'), null);
    assert.equal(valuesQueryOf(catalog, ['spend'], 'worker_type'), null);
  });

  it('reads plain values and envelopes (sending their .value), skipping none', () => {
    const found = offeredValuesOf(
      {
        status: 'ok',
        rows: [{ supplier: envelope('Acme <b>') }, { supplier: null }, { supplier: 'X' }],
        truncated: true,
      },
      'supplier',
    );
    assert.deepEqual(found, {
      ok: true,
      truncated: true,
      values: [
        { value: 'Acme <b>', envelope: envelope('Acme <b>') },
        { value: 'X', envelope: null },
      ],
    });
    assert.deepEqual(offeredValuesOf({ status: 'refused', code: 'bad_filter' }, 'x'), {
      ok: false,
      reason: 'The service would not list them (bad_filter).',
    });
  });

  it('asks once per dimension and view, and again after a failure', async () => {
    const bodies: unknown[] = [];
    let fail = true;
    const run: RunQuery = async (body) => {
      bodies.push(body);
      if (fail) throw new Error('down');
      return { status: 'ok', rows: [{ currency: 'EUR' }], truncated: false };
    };
    const source = valuesSource(catalog, run);
    assert.equal((await source.load(['spend'], 'currency')).ok, false);
    assert.equal(source.peek(['spend'], 'currency'), undefined);
    fail = false;
    const [a, b] = await Promise.all([
      source.load(['spend'], 'currency'),
      source.load(['line_count', 'spend'], 'currency'),
    ]);
    assert.deepEqual(a, b);
    assert.deepEqual(source.peek(['spend'], 'currency'), a);
    assert.equal(bodies.length, 2, 'one failure, then one question for both');
    await source.load(['hours'], 'supplier');
    assert.equal(bodies.length, 3, 'another view is another question');
  });
});

describe('refusals in words', () => {
  it('has a sentence of its own for every refusal code of the service', () => {
    const general = refusalWords('no_such_code');
    for (const code of Object.keys(REFUSAL_MESSAGES))
      assert.notEqual(refusalWords(code), general, code);
    assert.equal(refusalWords('toString'), general, 'no inherited member is a sentence');
  });
});

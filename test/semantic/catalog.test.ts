import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkDefinition,
  describeCatalog,
  resolveCatalog,
  type CatalogInputs,
  type CatalogTableEntry,
} from '../../src/semantic/catalog.js';
import { DEFAULT_METRICS } from '../../src/semantic/default-catalog.js';
import { normalizeQuery, validateQuery } from '../../src/semantic/validate.js';
import { VIEWS } from '../../src/semantic/views.js';

const DEFAULT_KEYS = Object.keys(DEFAULT_METRICS).sort();

const inputs = (over: Partial<CatalogInputs> = {}): CatalogInputs => ({
  workspaceSource: 'default',
  configVersion: 3,
  enabledMetrics: null,
  tableEntries: [],
  ...over,
});

const approvedTotal = {
  label: 'Approved expense total',
  view: 'expenses',
  unit: 'cents',
  measure: {
    agg: 'sum',
    column: 'amount',
    where: [{ column: 'expense_status', op: 'eq', values: ['approved'] }],
  },
};
const expenseEntries = {
  label: 'Expense entries',
  view: 'expenses',
  unit: 'count',
  measure: { agg: 'count' },
};
const approvalShare = {
  label: 'Approved share',
  view: 'expenses',
  unit: 'ratio',
  measure: {
    ratio: [
      { agg: 'count', where: [{ column: 'expense_status', op: 'eq', values: ['approved'] }] },
      { agg: 'count' },
    ],
  },
};

const entry = (key: string, definition: unknown, enabled = true): CatalogTableEntry => ({
  key,
  definition,
  enabled,
});

const tableInputs = (entries: CatalogTableEntry[], over: Partial<CatalogInputs> = {}) =>
  inputs({ workspaceSource: 'semantic_catalog_table', tableEntries: entries, ...over });

const validEntries = [
  entry('approved_total', approvedTotal),
  entry('expense_entries', expenseEntries),
  entry('approved_share', approvalShare),
];

const version = (i: CatalogInputs) => resolveCatalog(i).catalogVersion;

describe('catalogVersion', () => {
  it('has the form cv1- followed by hex', () => {
    assert.match(version(inputs()), /^cv1-[0-9a-f]+$/);
  });

  it('is the same for equal inputs', () => {
    assert.equal(version(inputs()), version(inputs()));
    assert.equal(version(tableInputs(validEntries)), version(tableInputs(validEntries)));
    assert.equal(
      version(inputs({ enabledMetrics: ['spend', 'hours_worked'] })),
      version(inputs({ enabledMetrics: ['spend', 'hours_worked'] })),
    );
  });

  it('does not depend on the order of enabledMetrics (or repeats in it)', () => {
    assert.equal(
      version(inputs({ enabledMetrics: ['spend', 'hours_worked', 'worker_count'] })),
      version(inputs({ enabledMetrics: ['worker_count', 'spend', 'hours_worked', 'spend'] })),
    );
  });

  it('does not depend on the order of table entries', () => {
    assert.equal(
      version(tableInputs(validEntries)),
      version(tableInputs([...validEntries].reverse())),
    );
  });

  it('does not depend on key order inside a stored definition', () => {
    const reordered = {
      measure: { where: approvedTotal.measure.where, column: 'amount', agg: 'sum' },
      unit: 'cents',
      view: 'expenses',
      label: 'Approved expense total',
    };
    assert.equal(
      version(tableInputs([entry('approved_total', approvedTotal)])),
      version(tableInputs([entry('approved_total', reordered)])),
    );
  });

  it('changes with the configuration version', () => {
    assert.notEqual(version(inputs({ configVersion: 3 })), version(inputs({ configVersion: 4 })));
    assert.notEqual(
      version(tableInputs(validEntries, { configVersion: 1 })),
      version(tableInputs(validEntries, { configVersion: 2 })),
    );
  });

  it('changes with the enabled set', () => {
    const base = version(inputs({ enabledMetrics: ['spend', 'hours_worked'] }));
    assert.notEqual(base, version(inputs({ enabledMetrics: ['spend'] })));
    assert.notEqual(
      base,
      version(inputs({ enabledMetrics: ['spend', 'hours_worked', 'worker_count'] })),
    );
    assert.notEqual(base, version(inputs()));
  });

  it('changes when a table entry is enabled or disabled', () => {
    assert.notEqual(
      version(tableInputs(validEntries)),
      version(
        tableInputs([...validEntries.slice(1), entry('approved_total', approvedTotal, false)]),
      ),
    );
  });

  it('changes when an enabled table entry definition changes', () => {
    const base = version(tableInputs(validEntries));
    const changed = (definition: unknown) =>
      version(tableInputs([entry('approved_total', definition), ...validEntries.slice(1)]));
    assert.notEqual(base, changed({ ...approvedTotal, label: 'Approved total (renamed)' }));
    assert.notEqual(base, changed({ ...approvedTotal, measure: { agg: 'sum', column: 'amount' } }));
    assert.notEqual(
      base,
      changed({
        ...approvedTotal,
        measure: {
          ...approvedTotal.measure,
          where: [{ column: 'expense_status', op: 'eq', values: ['submitted'] }],
        },
      }),
    );
    assert.notEqual(base, changed({ ...approvedTotal, scale: 100 }));
  });

  it('changes when the source changes although the metrics are the same', () => {
    assert.notEqual(version(inputs()), version(inputs({ enabledMetrics: DEFAULT_KEYS })));
  });
});

describe('resolveCatalog: sources', () => {
  it('uses the default catalog when no enabled set is configured', () => {
    const catalog = resolveCatalog(inputs());
    assert.equal(catalog.source, 'default');
    assert.deepEqual([...catalog.metrics.keys()], DEFAULT_KEYS);
    assert.equal(catalog.configVersion, 3);
    assert.deepEqual(catalog.rejected, []);
  });

  it('uses program_config when the configuration sets enabledMetrics', () => {
    const catalog = resolveCatalog(inputs({ enabledMetrics: ['spend', 'hours_worked'] }));
    assert.equal(catalog.source, 'program_config');
    assert.deepEqual([...catalog.metrics.keys()], ['hours_worked', 'spend']);
    // Disabled defaults stay known, so a query for them is metric_unavailable, not unknown_metric.
    assert.ok(catalog.knownMetrics.has('worker_count'));
    assert.ok(!catalog.metrics.has('worker_count'));
  });

  it('program_config ignores enabled keys that do not exist', () => {
    const catalog = resolveCatalog(inputs({ enabledMetrics: ['spend', 'no_such_metric'] }));
    assert.deepEqual([...catalog.metrics.keys()], ['spend']);
    assert.ok(!catalog.knownMetrics.has('no_such_metric'));
  });

  it('an empty enabled set enables nothing', () => {
    const catalog = resolveCatalog(inputs({ enabledMetrics: [] }));
    assert.equal(catalog.source, 'program_config');
    assert.equal(catalog.metrics.size, 0);
    assert.equal(catalog.dimensions.size, 0);
  });

  it('limits dimensions to the views of enabled metrics', () => {
    const catalog = resolveCatalog(inputs({ enabledMetrics: ['spend'] }));
    assert.deepEqual(
      [...catalog.dimensions.keys()].sort(),
      [...(VIEWS.get('invoice_lines')?.dimensions ?? [])].sort(),
    );
  });

  it('uses semantic_catalog_table entries for such workspaces, not the defaults', () => {
    const catalog = resolveCatalog(tableInputs(validEntries));
    assert.equal(catalog.source, 'semantic_catalog_table');
    assert.deepEqual(
      [...catalog.metrics.keys()],
      ['approved_share', 'approved_total', 'expense_entries'],
    );
    assert.ok(!catalog.metrics.has('spend'));
    assert.ok(catalog.knownMetrics.has('spend'));
    assert.deepEqual(catalog.metrics.get('approved_total'), {
      key: 'approved_total',
      ...approvedTotal,
    });
  });

  it('ignores table entries for workspaces on another source', () => {
    const catalog = resolveCatalog(inputs({ tableEntries: validEntries }));
    assert.equal(catalog.source, 'default');
    assert.ok(!catalog.metrics.has('approved_total'));
    assert.ok(!catalog.knownMetrics.has('approved_total'));
  });

  it('leaves a disabled table entry known but not enabled', () => {
    const catalog = resolveCatalog(tableInputs([entry('approved_total', approvedTotal, false)]));
    assert.ok(catalog.knownMetrics.has('approved_total'));
    assert.ok(!catalog.metrics.has('approved_total'));
  });

  it('a table workspace keeps its source when the configuration also sets enabledMetrics', () => {
    const catalog = resolveCatalog(
      tableInputs(validEntries, { enabledMetrics: ['approved_total'] }),
    );
    assert.equal(catalog.source, 'semantic_catalog_table');
    assert.deepEqual([...catalog.metrics.keys()], ['approved_total']);
  });
});

const INVALID: { name: string; definition: unknown }[] = [
  { name: 'an unknown view', definition: { ...expenseEntries, view: 'payroll' } },
  { name: 'a table that is not a view', definition: { ...expenseEntries, view: 'tokens' } },
  {
    name: 'an unknown column',
    definition: { ...approvedTotal, measure: { agg: 'sum', column: 'salary' } },
  },
  {
    name: 'a column of another view',
    definition: { ...approvedTotal, measure: { agg: 'sum', column: 'minutes' } },
  },
  {
    name: 'an unknown column in a condition',
    definition: {
      ...expenseEntries,
      measure: { agg: 'count', where: [{ column: 'password', op: 'eq', values: ['x'] }] },
    },
  },
  {
    name: 'an unknown column inside a ratio',
    definition: {
      ...approvalShare,
      measure: { ratio: [{ agg: 'sum', column: 'nope' }, { agg: 'count' }] },
    },
  },
  {
    name: 'a column named like an Object.prototype member (constructor)',
    definition: { ...approvedTotal, measure: { agg: 'sum', column: 'constructor' } },
  },
  {
    name: 'a condition column named constructor',
    definition: {
      ...expenseEntries,
      measure: { agg: 'count', where: [{ column: 'constructor', op: 'eq', values: ['x'] }] },
    },
  },
  { name: 'a sum without a column', definition: { ...approvedTotal, measure: { agg: 'sum' } } },
  { name: 'no measure', definition: { label: 'x', view: 'expenses', unit: 'count' } },
  {
    name: 'an unknown aggregation',
    definition: { ...approvedTotal, measure: { agg: 'median', column: 'amount' } },
  },
  { name: 'an unknown unit', definition: { ...expenseEntries, unit: 'dollars' } },
  { name: 'an empty label', definition: { ...expenseEntries, label: '' } },
  { name: 'a scale of 0', definition: { ...expenseEntries, scale: 0 } },
  { name: 'a fractional factor', definition: { ...expenseEntries, factor: 1.5 } },
  {
    name: 'an eq condition without values',
    definition: {
      ...expenseEntries,
      measure: { agg: 'count', where: [{ column: 'expense_status', op: 'eq' }] },
    },
  },
  {
    name: 'an in condition with an empty value list',
    definition: {
      ...expenseEntries,
      measure: { agg: 'count', where: [{ column: 'expense_status', op: 'in', values: [] }] },
    },
  },
  {
    name: 'a not_null condition with values',
    definition: {
      ...expenseEntries,
      measure: { agg: 'count', where: [{ column: 'amount', op: 'not_null', values: ['x'] }] },
    },
  },
  {
    name: 'a ratio of one aggregate',
    definition: { ...approvalShare, measure: { ratio: [{ agg: 'count' }] } },
  },
  { name: 'a null definition', definition: null },
  { name: 'a string definition', definition: 'SELECT 1' },
  { name: 'an array definition', definition: [expenseEntries] },
  { name: 'an extra top-level member', definition: { ...expenseEntries, sql: 'SELECT 1' } },
  {
    name: 'an extra member in the measure',
    definition: { ...expenseEntries, measure: { agg: 'count', expression: 'COUNT(*)' } },
  },
  {
    name: 'an extra member in a condition',
    definition: {
      ...expenseEntries,
      measure: {
        agg: 'count',
        where: [{ column: 'expense_status', op: 'eq', values: ['approved'], raw: '1=1' }],
      },
    },
  },
  {
    name: 'an extra member in the ratio object',
    definition: {
      ...approvalShare,
      measure: { ...approvalShare.measure, filter: 'x' },
    },
  },
];

describe('checkDefinition and table entry rejection', () => {
  it('accepts every default definition', () => {
    for (const [key, definition] of Object.entries(DEFAULT_METRICS))
      assert.ok(checkDefinition(definition), key);
  });

  it('accepts valid stored definitions (aggregate, count without column, ratio)', () => {
    for (const e of validEntries) assert.ok(checkDefinition(e.definition), e.key);
  });

  for (const c of INVALID) {
    it(`rejects a definition with ${c.name}, and does not enable it`, () => {
      assert.equal(checkDefinition(c.definition), false);
      const catalog = resolveCatalog(tableInputs([entry('custom', c.definition), ...validEntries]));
      assert.deepEqual(catalog.rejected, ['custom']);
      assert.ok(!catalog.metrics.has('custom'));
      assert.ok(catalog.knownMetrics.has('custom'));
      // The valid entries are still enabled.
      assert.equal(catalog.metrics.size, validEntries.length);
    });
  }

  it('answers metric_unavailable (not unknown_metric) for a rejected entry', () => {
    const catalog = resolveCatalog(
      tableInputs([entry('custom', { ...expenseEntries, view: 'payroll' }), ...validEntries]),
    );
    const result = validateQuery(
      normalizeQuery({ query: { metrics: ['custom'] } }, new Date('2026-01-15T00:00:00Z')),
      catalog,
    );
    assert.equal(!result.ok && result.code, 'metric_unavailable');
  });

  it('skips table entries whose key is not a valid metric key', () => {
    const catalog = resolveCatalog(
      tableInputs([entry('Bad Key', expenseEntries), entry("x'; --", expenseEntries)]),
    );
    assert.equal(catalog.metrics.size, 0);
    assert.ok(!catalog.knownMetrics.has('Bad Key'));
  });

  it('rejected entries do not change catalogVersion', () => {
    assert.equal(
      version(tableInputs(validEntries)),
      version(tableInputs([...validEntries, entry('custom', { nonsense: true })])),
    );
  });
});

describe('describeCatalog', () => {
  it('has exactly metrics, dimensions, catalogVersion and source', () => {
    const catalog = resolveCatalog(inputs());
    const described = describeCatalog(catalog);
    assert.deepEqual(Object.keys(described).sort(), [
      'catalogVersion',
      'dimensions',
      'metrics',
      'source',
    ]);
    assert.equal(described.catalogVersion, catalog.catalogVersion);
    assert.equal(described.source, 'default');
  });

  it('lists each metric as key, label, description, unit, its view dimensions and evaluative, in key order', () => {
    const described = describeCatalog(resolveCatalog(inputs()));
    assert.deepEqual(
      described.metrics.map((m) => m.key),
      DEFAULT_KEYS,
    );
    for (const m of described.metrics) {
      assert.deepEqual(Object.keys(m).sort(), [
        'description',
        'dimensions',
        'evaluative',
        'key',
        'label',
        'unit',
      ]);
      const definition = DEFAULT_METRICS[m.key];
      assert.equal(m.label, definition.label);
      assert.ok(definition.description, `${m.key} has its own description`);
      assert.equal(m.description, definition.description);
      assert.equal(m.unit, definition.unit);
      assert.deepEqual(m.dimensions, VIEWS.get(definition.view)?.dimensions);
      assert.equal(typeof m.evaluative, 'boolean');
      assert.equal(m.evaluative, definition.evaluative === true);
    }
    assert.equal(
      described.metrics.find((m) => m.key === 'supplier_scorecard_score')?.evaluative,
      true,
    );
    assert.equal(described.metrics.find((m) => m.key === 'spend')?.evaluative, false);
  });

  it('gives each default metric the unit DESIGN §6 names (avg_regular_rate: cents, per hour in its description)', () => {
    const units = Object.fromEntries(
      describeCatalog(resolveCatalog(inputs())).metrics.map((m) => [m.key, m.unit]),
    );
    const expected: Record<string, string[]> = {
      hours: ['hours_worked', 'overtime_hours'],
      days: ['days_worked', 'invoice_cycle_days', 'timesheet_approval_days', 'avg_tenure_days'],
      ratio: [
        'overtime_hours_share',
        'on_behalf_share',
        'credit_note_rate',
        'timesheet_rejection_rate',
      ],
      cents: [
        'spend',
        'labor_spend',
        'expense_spend',
        'overtime_spend',
        'avg_regular_rate',
        'invoiced_total',
        'credit_note_total',
        'expense_total',
      ],
      count: [
        'time_entry_count',
        'invoice_count',
        'timesheet_count',
        'worker_count',
        'active_worker_count',
        'expense_count',
      ],
    };
    for (const [unit, keys] of Object.entries(expected))
      for (const key of keys) assert.equal(units[key], unit, key);
    assert.match(String(DEFAULT_METRICS.avg_regular_rate.description), /cents per hour/);
  });

  it('lists dimensions as key, label, description and type (categorical or time), nothing internal', () => {
    const described = describeCatalog(resolveCatalog(inputs({ enabledMetrics: ['spend'] })));
    assert.deepEqual(
      described.dimensions.map((d) => d.key).sort(),
      [...(VIEWS.get('invoice_lines')?.dimensions ?? [])].sort(),
    );
    for (const d of described.dimensions) {
      assert.deepEqual(Object.keys(d).sort(), ['description', 'key', 'label', 'type']);
      assert.ok(d.label.length > 0);
      assert.ok(d.description.length > 0);
      assert.equal(d.type, d.key === 'invoice_period' ? 'time' : 'categorical');
    }
  });

  it('describes a table catalog with its own metrics and source', () => {
    const described = describeCatalog(resolveCatalog(tableInputs(validEntries)));
    assert.equal(described.source, 'semantic_catalog_table');
    assert.deepEqual(described.metrics[1], {
      key: 'approved_total',
      label: 'Approved expense total',
      description:
        'A metric defined for this workspace on the expenses view: the sum of amount (restricted by conditions on expense_status); in integer cents of the currency (group by currency).',
      unit: 'cents',
      dimensions: VIEWS.get('expenses')?.dimensions,
      evaluative: false,
    });
  });

  it("describes a table metric by its stored description, else from its measure (never a condition's values)", () => {
    const described = describeCatalog(
      resolveCatalog(
        tableInputs([
          entry('approved_total', { ...approvedTotal, description: 'Approved money out.' }),
          entry('approved_share', approvalShare),
          entry('expense_entries', expenseEntries),
        ]),
      ),
    );
    const about = Object.fromEntries(described.metrics.map((m) => [m.key, m.description]));
    assert.equal(about.approved_total, 'Approved money out.');
    assert.equal(
      about.approved_share,
      'A metric defined for this workspace on the expenses view: the number of rows (restricted by conditions on expense_status), divided by the number of rows; a ratio.',
    );
    assert.equal(
      about.expense_entries,
      'A metric defined for this workspace on the expenses view: the number of rows; a count.',
    );
    assert.ok(!JSON.stringify(described).includes('"approved"'), 'no condition value');
  });

  it('names the listed values of an enumerated dimension in its description', () => {
    const described = describeCatalog(resolveCatalog(inputs({ enabledMetrics: ['spend'] })));
    const status = described.dimensions.find((d) => d.key === 'invoice_status');
    assert.match(String(status?.description), /Values: draft, issued, pushed, void\./);
  });

  it('is JSON-serialisable and round-trips unchanged', () => {
    const described = describeCatalog(resolveCatalog(inputs()));
    assert.deepEqual(JSON.parse(JSON.stringify(described)), described);
  });
});

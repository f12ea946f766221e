import type { ExplorerCatalog } from '../types.js';
import type { ValuesSource } from './dimension-values.js';
import { h } from '../dom.js';
import { filtersSection } from './explorer-filters.js';
import {
  chooseMetrics,
  emptyState,
  grainApplies,
  LIMITS,
  mixesCurrencies,
  offeredDimensions,
  offeredMetrics,
  orderKeys,
  PERIOD_UNITS,
  problemsOf,
  queryableMetrics,
  settle,
  splitApplies,
  TIME_GRAINS,
  type ExplorerState,
  type PeriodUnit,
  type TimeGrain,
  type When,
} from './explorer-query.js';
import { checkbox, field, radio, section, select } from '../form-controls.js';

/**
 * The explorer's form: native controls only (checkboxes, radios, selects, text and date inputs),
 * each with its label, so it works by keyboard and with a screen reader as the browser makes
 * them. A choice that changes what else is allowed (a metric, a dimension, the kind of period, a
 * filter added or removed) draws the form again from the state, settled against the catalog,
 * and puts the focus back on the control that had it; typing changes the state alone.
 */

const GRAIN_LABELS: Record<TimeGrain, string> = {
  day: 'Day',
  week: 'Week',
  month: 'Month',
  quarter: 'Quarter',
  year: 'Year',
};

function offsetLabel(unit: PeriodUnit, offset: number): string {
  if (offset === 0) return `This ${unit}`;
  if (offset === -1) return `Last ${unit}`;
  return `${-offset} ${unit}s ago`;
}

export function explorerForm(
  catalog: ExplorerCatalog,
  initial: ExplorerState,
  onRun: (state: ExplorerState) => void,
  values: ValuesSource | null = null,
): HTMLFormElement {
  let state = settle(catalog, initial);
  const form = h('form', {
    class: 'explorer-form',
    'aria-label': 'Query',
    novalidate: true,
  }) as HTMLFormElement;
  const problems = h('div', { class: 'problems', role: 'alert' });

  /** A change that alters what is offered: settle the state and draw the form again. */
  const change = (next: ExplorerState) => {
    state = settle(catalog, next);
    draw();
  };
  const metricLabel = (key: string) => catalog.metrics.find((m) => m.key === key)?.label ?? key;
  const dimensionLabel = (key: string) =>
    catalog.dimensions.find((d) => d.key === key)?.label ?? key;

  /** Checkboxes of metrics or dimensions: ticking one adds its key to that list of the state. */
  const choiceList = (
    member: 'metrics' | 'dimensions',
    items: { key: string; label: string; detail: string; description?: string }[],
  ) =>
    h(
      'ul',
      { class: 'choices' },
      ...items.map((item) =>
        checkbox(
          `ex-${member.slice(0, -1)}-${item.key}`,
          state[member].includes(item.key),
          item.label,
          item.detail,
          (on) => {
            const keys = on
              ? [...state[member], item.key]
              : state[member].filter((k) => k !== item.key);
            // Metrics through chooseMetrics: a fresh choice of money ticks "Split by currency".
            if (member === 'metrics') change(chooseMetrics(catalog, state, keys));
            else change({ ...state, dimensions: keys });
          },
          item.description,
        ),
      ),
    );

  function metricsSection(): HTMLElement {
    const offered = offeredMetrics(catalog, state.metrics);
    const evaluative = catalog.metrics.length - queryableMetrics(catalog).length;
    const first = state.metrics[0];
    return section(
      'ex-metrics',
      'Metrics',
      h(
        'p',
        { class: 'hint' },
        first
          ? `Only metrics that read the same data as “${metricLabel(first)}” are offered; untick every metric to choose from all.`
          : 'Choose one or more. Once one is chosen, only metrics that can be combined with it are offered.',
        evaluative > 0
          ? ` ${evaluative} evaluative metric${evaluative === 1 ? ' is' : 's are'} in the catalog but never served, so not offered.`
          : '',
      ),
      offered.length === 0
        ? h('p', {}, 'The catalog of this workspace has no metric to query.')
        : choiceList(
            'metrics',
            offered.map((m) => ({ ...m, detail: `${m.key} · ${m.unit}` })),
          ),
    );
  }

  /** Said when the amounts would add currencies together; kept current as filters are typed. */
  const warning = h(
    'p',
    { class: 'currency-warning', id: 'ex-currency-warning', role: 'status' },
    'Not split by currency, these amounts add different currencies together: a sum of euros and dollars is neither.',
  );
  const currencyWarning = () => {
    warning.hidden = !mixesCurrencies(catalog, state);
  };

  /**
   * Money metrics are integer cents in each row's own currency, never converted: "Split by
   * currency" (ticked for a new query) adds currency to the body's dimensions.
   */
  function currencySplit(): HTMLElement | null {
    if (!splitApplies(catalog, state)) return null;
    currencyWarning();
    return h(
      'div',
      { class: 'currency-split' },
      h(
        'ul',
        { class: 'choices' },
        checkbox(
          'ex-split-currency',
          state.splitCurrency,
          'Split by currency',
          'Money is in each row’s own currency and never converted; this groups it by currency too.',
          (on) => change({ ...state, splitCurrency: on }),
        ),
      ),
      warning,
    );
  }

  function dimensionsSection(): HTMLElement {
    const offered = offeredDimensions(catalog, state.metrics);
    return section(
      'ex-dimensions',
      'Group by',
      currencySplit(),
      offered.length === 0
        ? h('p', { class: 'hint' }, 'Choose a metric first: its dimensions are offered here.')
        : choiceList(
            'dimensions',
            offered.map((d) => ({ ...d, detail: d.type === 'time' ? `${d.key} · time` : d.key })),
          ),
      grainApplies(catalog, state)
        ? field(
            'ex-grain',
            'Time grain',
            select(
              'ex-grain',
              [
                { value: '', label: 'Each date (no grain)' },
                ...TIME_GRAINS.map((g) => ({ value: g, label: GRAIN_LABELS[g] })),
              ],
              state.timeGrain ?? '',
              (v) => (state = { ...state, timeGrain: (v || null) as TimeGrain | null }),
            ),
            'Buckets the time dimension.',
          )
        : null,
    );
  }

  function whenControls(when: When): HTMLElement | null {
    // Typing changes the current period's member alone (the kind stays, so does the rest).
    const set = (patch: Partial<When>) =>
      (state = { ...state, when: { ...state.when, ...patch } as When });
    if (when.kind === 'relative')
      return h(
        'div',
        { class: 'row' },
        field(
          'ex-period-unit',
          'Calendar',
          select(
            'ex-period-unit',
            PERIOD_UNITS.map((u) => ({ value: u, label: u[0].toUpperCase() + u.slice(1) })),
            when.unit,
            (v) => change({ ...state, when: { ...when, unit: v as PeriodUnit } }),
          ),
        ),
        field(
          'ex-period-offset',
          'Which',
          select(
            'ex-period-offset',
            Array.from({ length: LIMITS.maxOffset + 1 }, (_, i) => ({
              value: String(-i),
              label: offsetLabel(when.unit, -i),
            })),
            String(when.offset),
            (v) => set({ offset: Number(v) }),
          ),
        ),
      );
    if (when.kind === 'quarter') {
      const year = h('input', {
        id: 'ex-quarter-year',
        type: 'number',
        inputmode: 'numeric',
        min: LIMITS.minYear,
        max: LIMITS.maxYear,
        placeholder: 'latest',
        value: when.year ?? undefined,
      }) as HTMLInputElement;
      year.addEventListener('input', () =>
        set({ year: year.value === '' ? null : Number(year.value) }),
      );
      return h(
        'div',
        { class: 'row' },
        field(
          'ex-quarter',
          'Quarter',
          select(
            'ex-quarter',
            [1, 2, 3, 4].map((q) => ({ value: String(q), label: `Q${q}` })),
            String(when.quarter),
            (v) => set({ quarter: Number(v) }),
          ),
        ),
        field('ex-quarter-year', 'Year', year, 'Empty: the latest such quarter already begun.'),
      );
    }
    if (when.kind === 'range') {
      const date = (id: string, value: string, key: 'from' | 'to') => {
        const input = h('input', { id, type: 'date', value, required: true }) as HTMLInputElement;
        input.addEventListener('input', () => set({ [key]: input.value }));
        return input;
      };
      return h(
        'div',
        { class: 'row' },
        field('ex-from', 'From', date('ex-from', when.from, 'from')),
        field('ex-to', 'To (inclusive)', date('ex-to', when.to, 'to')),
      );
    }
    return null;
  }

  function whenSection(): HTMLElement {
    const kind = state.when.kind;
    const pick = (next: When) => () => change({ ...state, when: next });
    return section(
      'ex-when',
      'Time',
      h(
        'ul',
        { class: 'choices inline' },
        radio('ex-when', 'all', kind === 'all', 'All time', pick({ kind: 'all' })),
        radio(
          'ex-when',
          'relative',
          kind === 'relative',
          'A month, quarter or year',
          pick({ kind: 'relative', unit: 'month', offset: -1 }),
        ),
        radio(
          'ex-when',
          'quarter',
          kind === 'quarter',
          'A quarter',
          pick({ kind: 'quarter', quarter: 1, year: null }),
        ),
        radio(
          'ex-when',
          'range',
          kind === 'range',
          'A date range',
          pick({ kind: 'range', from: '', to: '' }),
        ),
      ),
      whenControls(state.when),
      h(
        'p',
        { class: 'hint' },
        'Calendar periods in UTC, resolved when the query runs; the result shows the dates used.',
      ),
    );
  }

  function orderSection(): HTMLElement {
    const keys = orderKeys(catalog, state);
    const limit = h('input', {
      id: 'ex-limit',
      type: 'number',
      inputmode: 'numeric',
      min: 1,
      max: LIMITS.maxLimit,
      placeholder: '100',
      value: state.limit ?? undefined,
    }) as HTMLInputElement;
    limit.addEventListener('input', () => {
      state = { ...state, limit: limit.value === '' ? null : Number(limit.value) };
    });
    const order = state.order;
    const label = (key: string) =>
      state.metrics.includes(key) ? metricLabel(key) : dimensionLabel(key);
    return section(
      'ex-order',
      'Order and limit',
      h(
        'div',
        { class: 'row' },
        field(
          'ex-order-key',
          'Order by',
          select(
            'ex-order-key',
            [
              { value: '', label: 'The server’s order' },
              ...keys.map((k) => ({ value: k, label: label(k) })),
            ],
            order?.key ?? '',
            (v) =>
              change({
                ...state,
                order: v ? { key: v, direction: state.order?.direction ?? 'desc' } : null,
              }),
          ),
        ),
        order
          ? field(
              'ex-order-direction',
              'Direction',
              select(
                'ex-order-direction',
                [
                  { value: 'desc', label: 'Largest / latest first' },
                  { value: 'asc', label: 'Smallest / earliest first' },
                ],
                order.direction,
                (v) =>
                  (state = {
                    ...state,
                    order: { key: order.key, direction: v === 'asc' ? 'asc' : 'desc' },
                  }),
              ),
            )
          : null,
        field('ex-limit', 'Most rows', limit, `1 to ${LIMITS.maxLimit}; empty: 100.`),
      ),
    );
  }

  const actions = h(
    'div',
    { class: 'row explorer-actions' },
    h('button', { type: 'submit', id: 'ex-run' }, 'Run'),
    h('button', { type: 'reset', class: 'secondary', id: 'ex-clear' }, 'Clear'),
  );

  function draw(): void {
    const focused = form.isConnected ? document.activeElement?.id : undefined;
    form.replaceChildren(
      metricsSection(),
      dimensionsSection(),
      whenSection(),
      filtersSection({
        catalog,
        state: () => state,
        set: (next) => {
          state = next;
          currencyWarning();
        },
        change,
        values,
      }),
      orderSection(),
      actions,
      problems,
    );
    if (focused) document.getElementById(focused)?.focus();
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const found = problemsOf(state);
    problems.replaceChildren(...found.map((p) => h('p', {}, p)));
    if (found.length === 0) onRun(state);
  });
  form.addEventListener('reset', (event) => {
    event.preventDefault();
    problems.replaceChildren();
    change(emptyState());
    document.getElementById('ex-metrics')?.querySelector('input')?.focus();
  });
  draw();
  return form;
}

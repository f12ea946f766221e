import type { ExplorerCatalog } from '../types.js';
import type { OfferedValue, OfferedValues, ValuesSource } from './dimension-values.js';
import { VALUES_CAP } from './dimension-values.js';
import { h, thirdParty } from '../dom.js';
import {
  arityOf,
  isTimeDimension,
  LIMITS,
  newFilter,
  offeredDimensions,
  OPERATORS,
  pickedByDate,
  withDimension,
  withOperator,
  withValueAt,
  withValuePicked,
  type ExplorerState,
  type FilterDraft,
  type Operator,
} from './explorer-query.js';
import { checkbox, field, radio, section, select, type Option } from '../form-controls.js';

/**
 * The explorer's filters (issue 22, item 4): each a dimension, an operator and its values. A
 * categorical dimension offers the values it has in this workspace (dimension-values.ts) as
 * radios (one value) or checkboxes (in); a time dimension offers date inputs; every filter also
 * takes values typed by hand, so a value not offered can still be sent.
 */

export interface FiltersContext {
  catalog: ExplorerCatalog;
  state: () => ExplorerState;
  /** Typing: the state changes, the form stays as drawn. */
  set: (next: ExplorerState) => void;
  /** A choice that changes what is offered: the form is drawn again. */
  change: (next: ExplorerState) => void;
  /** Where a dimension's values are found; null offers none (typing alone). */
  values: ValuesSource | null;
}

const OPERATOR_LABELS: Record<Operator, string> = {
  eq: 'is (eq)',
  neq: 'is not (neq)',
  in: 'is one of (in)',
  gte: 'on or after / at least (gte)',
  lte: 'on or before / at most (lte)',
  between: 'between, inclusive (between)',
};

/** A value as its label shows it: people-typed text marked as third-party, plain text as is. */
const shown = (v: OfferedValue) => (v.envelope ? thirdParty(v.envelope) : v.value);

function filterRow(ctx: FiltersContext, index: number, dimensions: Option[]): HTMLElement {
  const filter = ctx.state().filters[index];
  const id = `ex-filter-${index}`;
  /** This filter changed (read anew: typing may have changed it since the draw). */
  const replaced = (change: (f: FilterDraft) => FilterDraft) => ({
    ...ctx.state(),
    filters: ctx.state().filters.map((f, i) => (i === index ? change(f) : f)),
  });
  const edit: Edit = (change, redraw) => (redraw ? ctx.change : ctx.set)(replaced(change));
  const remove = h('button', { type: 'button', class: 'secondary', id: `${id}-remove` }, 'Remove');
  remove.setAttribute('aria-label', `Remove filter ${index + 1}`);
  remove.addEventListener('click', () => {
    const state = ctx.state();
    ctx.change({ ...state, filters: state.filters.filter((_, i) => i !== index) });
    document.getElementById('ex-add-filter')?.focus();
  });
  return h(
    'div',
    { class: 'filter-row', role: 'group', 'aria-label': `Filter ${index + 1}` },
    h(
      'div',
      { class: 'row' },
      field(
        `${id}-dimension`,
        'Dimension',
        select(`${id}-dimension`, dimensions, filter.dimension, (v) =>
          edit((f) => withDimension(f, v), true),
        ),
      ),
      field(
        `${id}-operator`,
        'Operator',
        select(
          `${id}-operator`,
          OPERATORS.map((o) => ({ value: o, label: OPERATOR_LABELS[o] })),
          filter.operator,
          (v) => edit((f) => withOperator(ctx.catalog, f, v as Operator), true),
        ),
      ),
      remove,
    ),
    pickedValues(ctx, filter, id, edit),
    typedValues(ctx, filter, id, (typed) => edit((f) => ({ ...f, typed }), false)),
  );
}

/** A change of one filter; `redraw` when it changes what the form shows. */
type Edit = (change: (f: FilterDraft) => FilterDraft, redraw: boolean) => void;

/** The values picked: date inputs on a time dimension, else the values offered, once found. */
function pickedValues(
  ctx: FiltersContext,
  filter: FilterDraft,
  id: string,
  edit: Edit,
): HTMLElement | null {
  const arity = arityOf(filter.operator);
  if (pickedByDate(ctx.catalog, filter)) {
    const labels = arity === 2 ? ['From', 'To (inclusive)'] : ['Date'];
    return h(
      'div',
      { class: 'row' },
      ...labels.map((label, i) => {
        const input = h('input', {
          id: `${id}-date-${i}`,
          type: 'date',
          value: filter.values[i] ?? '',
        }) as HTMLInputElement;
        // Typing a date changes the state alone; the date inputs stay as drawn.
        input.addEventListener('input', () => edit((f) => withValueAt(f, i, input.value), false));
        return field(`${id}-date-${i}`, label, input);
      }),
    );
  }
  if (isTimeDimension(ctx.catalog, filter.dimension) || arity === 2 || !ctx.values) return null;
  const slot = h('div', { class: 'filter-values', id: `${id}-offered` });
  const metrics = ctx.state().metrics;
  const known = ctx.values.peek(metrics, filter.dimension);
  const fill = (found: OfferedValues) =>
    slot.replaceChildren(offeredList(found, filter, id, arity === 'many', edit));
  if (known) fill(known);
  else {
    slot.append(h('p', { class: 'hint loading' }, 'Finding the values this workspace has…'));
    void ctx.values.load(metrics, filter.dimension).then((found) => {
      // Drawn again meanwhile: that draw shows them (they are known by then).
      if (slot.isConnected) fill(found);
    });
  }
  return slot;
}

/** Radios (one value) or checkboxes (in) of the values found, and any picked that were not. */
function offeredList(
  found: OfferedValues,
  filter: FilterDraft,
  id: string,
  many: boolean,
  edit: Edit,
): HTMLElement {
  // A pick changes what the form shows (the currency warning, say): the form is drawn again.
  const pick = (change: (f: FilterDraft) => FilterDraft) => edit(change, true);
  if (!found.ok) return h('p', { class: 'hint' }, `${found.reason} Type the values below.`);
  const offered = new Set(found.values.map((v) => v.value));
  const others = filter.values
    .filter((v) => v !== '' && !offered.has(v))
    .map((value) => ({ value, envelope: null }));
  const items = [...found.values, ...others].map((v, k) => {
    const label = h('span', {}, shown(v), offered.has(v.value) ? '' : ' (not among those found)');
    return many
      ? checkbox(`${id}-value-${k}`, filter.values.includes(v.value), label, '', (on) =>
          pick((f) => withValuePicked(f, v.value, on)),
        )
      : radio(
          `${id}-value`,
          v.value,
          filter.values[0] === v.value,
          label,
          () => pick((f) => withValueAt(f, 0, v.value)),
          `${id}-value-${k}`,
        );
  });
  const none = many
    ? null
    : radio(
        `${id}-value`,
        '',
        !filter.values[0],
        'None (type it below)',
        () => pick((f) => withValueAt(f, 0, '')),
        `${id}-value-none`,
      );
  return h(
    'fieldset',
    {},
    h('legend', {}, many ? 'Values (any number)' : 'Value'),
    found.values.length === 0 ? h('p', { class: 'hint' }, 'No values found.') : null,
    h('ul', { class: 'choices value-choices' }, none, ...items),
    found.truncated
      ? h(
          'p',
          { class: 'hint', id: `${id}-capped` },
          `Showing the first ${VALUES_CAP} of more values; type any other value below.`,
        )
      : null,
  );
}

/** Values typed by hand, comma-separated: sent after those picked. */
function typedValues(
  ctx: FiltersContext,
  filter: FilterDraft,
  id: string,
  type: (typed: string) => void,
): HTMLElement {
  const input = h('input', {
    id: `${id}-values`,
    type: 'text',
    value: filter.typed,
    autocomplete: 'off',
    spellcheck: 'false',
  }) as HTMLInputElement;
  input.addEventListener('input', () => type(input.value));
  const time = isTimeDimension(ctx.catalog, filter.dimension);
  const arity = arityOf(filter.operator);
  const picks = time ? arity !== 'many' : arity !== 2 && ctx.values !== null;
  return field(
    `${id}-values`,
    picks ? 'Or type values, comma-separated' : 'Values, comma-separated',
    input,
    [
      time ? 'Dates as YYYY-MM-DD.' : '',
      arity === 2 ? 'between takes two values.' : arity === 'many' ? 'in takes one or more.' : '',
      picks ? 'Sent with those chosen above.' : '',
    ]
      .filter((s) => s !== '')
      .join(' '),
  );
}

export function filtersSection(ctx: FiltersContext): HTMLElement {
  const state = ctx.state();
  const dimensions = offeredDimensions(ctx.catalog, state.metrics).map((d) => ({
    value: d.key,
    label: d.label,
  }));
  const add = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      id: 'ex-add-filter',
      disabled: dimensions.length === 0 || state.filters.length >= LIMITS.maxFilters,
    },
    'Add filter',
  );
  add.addEventListener('click', () => {
    const now = ctx.state();
    ctx.change({ ...now, filters: [...now.filters, newFilter(dimensions[0].value)] });
    document.getElementById(`ex-filter-${ctx.state().filters.length - 1}-dimension`)?.focus();
  });
  return section(
    'ex-filters',
    'Filters',
    ...state.filters.map((_, i) => filterRow(ctx, i, dimensions)),
    add,
  );
}

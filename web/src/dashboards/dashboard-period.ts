import { h } from '../dom.js';

/**
 * A dashboard's steering, kept in its address (#/dashboard/<id>?period=…&compare=1) so a view can
 * be reloaded or shared: one period for every tile (or each tile's own saved period), and
 * whether each figure is shown beside the previous period's.
 */
export type DashboardPeriod =
  | { kind: 'saved' }
  | { kind: 'relative'; unit: 'month' | 'quarter' | 'year'; offset: 0 | -1 }
  | { kind: 'range'; from: string; to: string };

export interface DashboardSettings {
  period: DashboardPeriod;
  compare: boolean;
}

const CHOICES: [string, string][] = [
  ['saved', 'As each tile is saved'],
  ['month:0', 'This month'],
  ['month:-1', 'Last month'],
  ['quarter:0', 'This quarter'],
  ['quarter:-1', 'Last quarter'],
  ['year:0', 'This year'],
  ['year:-1', 'Last year'],
  ['range', 'Dates…'],
];

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function settingsOf(search: string): DashboardSettings {
  const params = new URLSearchParams(search);
  const compare = params.get('compare') === '1';
  const text = params.get('period') ?? 'saved';
  const relative = /^(month|quarter|year):(0|-1)$/.exec(text);
  if (relative)
    return {
      compare,
      period: {
        kind: 'relative',
        unit: relative[1] as 'month' | 'quarter' | 'year',
        offset: Number(relative[2]) as 0 | -1,
      },
    };
  const [kind, from, to] = text.split(':');
  if (kind === 'range' && DATE.test(from ?? '') && DATE.test(to ?? '') && from <= to)
    return { compare, period: { kind: 'range', from, to } };
  return { compare, period: { kind: 'saved' } };
}

function periodText(period: DashboardPeriod): string {
  if (period.kind === 'relative') return `${period.unit}:${period.offset}`;
  if (period.kind === 'range') return `range:${period.from}:${period.to}`;
  return 'saved';
}

export function settingsHash(id: string, settings: DashboardSettings): string {
  const params = new URLSearchParams();
  if (settings.period.kind !== 'saved') params.set('period', periodText(settings.period));
  if (settings.compare) params.set('compare', '1');
  const search = params.toString();
  return `#/dashboard/${encodeURIComponent(id)}${search ? `?${search}` : ''}`;
}

/**
 * The form above a dashboard: a period, two dates for "Dates…", and "Compare with the previous
 * period"; Apply puts them in the address, which draws the dashboard again.
 */
export function periodForm(id: string, settings: DashboardSettings): HTMLElement {
  const current = settings.period.kind === 'range' ? 'range' : periodText(settings.period);
  const select = h(
    'select',
    { id: 'dash-period', name: 'period' },
    ...CHOICES.map(([value, label]) => h('option', { value, selected: value === current }, label)),
  ) as HTMLSelectElement;
  const range = settings.period.kind === 'range' ? settings.period : null;
  const from = h('input', {
    id: 'dash-from',
    type: 'date',
    value: range?.from,
  }) as HTMLInputElement;
  const to = h('input', { id: 'dash-to', type: 'date', value: range?.to }) as HTMLInputElement;
  const dates = h(
    'div',
    { class: 'dates', hidden: current !== 'range' },
    h('label', { for: 'dash-from' }, 'From'),
    from,
    h('label', { for: 'dash-to' }, 'To'),
    to,
  );
  select.addEventListener('change', () => {
    dates.hidden = select.value !== 'range';
  });
  const compare = h('input', {
    id: 'dash-compare',
    type: 'checkbox',
    checked: settings.compare,
  }) as HTMLInputElement;
  const problem = h('p', { class: 'problems', role: 'alert' });
  const form = h(
    'form',
    { class: 'dashboard-controls', 'aria-label': 'Dashboard period' },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'dash-period' }, 'Period for every tile'),
      select,
    ),
    dates,
    h(
      'div',
      { class: 'choice' },
      compare,
      h('label', { for: 'dash-compare' }, 'Compare with the previous period'),
    ),
    h('button', { type: 'submit' }, 'Apply'),
    problem,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    let period: DashboardPeriod = settingsOf(`period=${select.value}`).period;
    if (select.value === 'range') {
      if (!DATE.test(from.value) || !DATE.test(to.value) || from.value > to.value) {
        problem.textContent = 'Give both dates, the first on or before the second.';
        return;
      }
      period = { kind: 'range', from: from.value, to: to.value };
    }
    location.hash = settingsHash(id, { period, compare: compare.checked });
  });
  return form;
}

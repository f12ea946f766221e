import {
  CURRENCY,
  currencyReader,
  hasMoney,
  mixesCurrencies,
  splitByCurrency,
} from './currency.js';
import { h, thirdParty } from '../dom.js';
import { errorView } from '../error-view.js';
import type { Names } from '../session/names.js';
import { isOngoing } from './periods.js';
import { chartKindOf, figureOf, type PickFilter } from './result-figure.js';
import { resultTable } from './result-table.js';
import { refusalWords } from './refusal-words.js';
import type { More, ReportAnswer, ReportRefusal, ReportResult } from '../types.js';

function meta(result: ReportResult, options: ResultOptions): HTMLElement {
  const range = result.semanticQuery.timeRange;
  const before = options.previous?.semanticQuery.timeRange;
  // Which dates the range is on: a tile of workers is filtered by tenure start, not headcount.
  const time = options.names.timeOf(result.semanticQuery.metrics[0]);
  return h(
    'p',
    // The catalog's version is for people who debug, not for readers ("catalog cv1-e7e1…" said
    // nothing to them, issue 57): kept on the element, not shown.
    { class: 'meta', 'data-catalog': result.catalogVersion },
    range ? `${range.from} to ${range.to}` : 'All time',
    range && time ? ` (${options.names.label(time)})` : '',
    isOngoing(range)
      ? h(
          'span',
          { class: 'incomplete', title: 'The period runs past today' },
          ' incomplete: not over yet',
        )
      : '',
    before ? ` · previous period ${before.from} to ${before.to}` : '',
    result.semanticQuery.timeGrain ? ` · by ${result.semanticQuery.timeGrain}` : '',
    ` · ${result.rows.length} row${result.rows.length === 1 ? '' : 's'}`,
  );
}

export function refusalView(refusal: ReportRefusal): HTMLElement {
  return h(
    'div',
    { class: 'refusal', role: 'status' },
    h('p', { class: 'refusal-words' }, refusalWords(refusal.code)),
    h('strong', {}, `Refused (${refusal.code}): `),
    thirdParty(refusal.message),
    refusal.closestMetrics?.length
      ? h('p', {}, `Closest metrics: ${refusal.closestMetrics.join(', ')}`)
      : null,
  );
}

/** What drawing a result needs beyond the answer. */
export interface ResultOptions {
  timeKeys: ReadonlySet<string>;
  names: Names;
  /** Names the result for screen readers and its CSV file. */
  title: string;
  /** The next page of the same run, for "Load more". */
  more?: More;
  /** The same query over the previous period, when comparing. */
  previous?: ReportResult | null;
  /** Opens the explorer on this result's query narrowed by filters (a click on a bar or point). */
  pick?: (filters: PickFilter[]) => void;
}

const MIXED_NOTE =
  'These amounts may add different currencies together, so they are not shown: group by currency, or filter one currency, to see them.';

/** The figures of a result: one per currency where it has money, each on its own axis. */
function figures(
  result: ReportResult,
  parts: [string, ReportResult][],
  options: ResultOptions,
): HTMLElement {
  const base = { timeKeys: options.timeKeys, names: options.names };
  if (parts.length === 0) {
    if (mixesCurrencies(result) && result.metricDefinitions.every((m) => m.unit === 'cents'))
      return h('p', { class: 'note mixed' }, MIXED_NOTE);
    const currency = hasMoney(result) ? currencyReader(result)({}) : null;
    const withoutMoney = mixesCurrencies(result)
      ? { ...result, metricDefinitions: result.metricDefinitions.filter((m) => m.unit !== 'cents') }
      : result;
    return figureOf(withoutMoney, {
      ...base,
      currency,
      previous: options.previous,
      pick: options.pick,
    });
  }
  const earlier = new Map(options.previous ? splitByCurrency(options.previous) : []);
  return h(
    'div',
    { class: 'per-currency' },
    ...parts.map(([code, part]) =>
      h(
        'section',
        { class: 'currency-part', 'data-currency': code },
        h('h4', {}, `In ${code}`),
        figureOf(part, {
          ...base,
          currency: code,
          previous: options.previous ? (earlier.get(code) ?? { ...part, rows: [] }) : null,
          pick: options.pick
            ? (filters) =>
                options.pick?.([
                  ...filters,
                  { dimension: CURRENCY, operator: 'eq', values: [code] },
                ])
            : undefined,
        }),
      ),
    ),
  );
}

/**
 * A result drawn: its figures (over time, by category, or big numbers; one per currency where it
 * has money), the table of the same rows below them, the catalog version and resolved time
 * range, and its truncation: a row budget continues through nextCursor ("Load more" appends the
 * next page and draws again), a query limit is said.
 */
export function resultView(answer: ReportAnswer, options: ResultOptions): HTMLElement {
  const root = h('div', { class: 'result' });
  const more = options.more;
  const draw = (result: ReportResult) => {
    root.replaceChildren();
    if (result.status === 'empty' || result.rows.length === 0) {
      root.setAttribute('data-chart-kind', 'empty');
      const before = options.previous?.rows.length ?? 0;
      root.append(
        meta(result, options),
        h(
          'p',
          { class: 'empty' },
          'No rows for this query',
          options.previous ? ` in this period; the previous period has ${before}.` : '.',
        ),
      );
      return;
    }
    // The shape drawn: of one currency's rows where the result is split by currency.
    const parts = splitByCurrency(result);
    const drawn = parts[0]?.[1] ?? result;
    root.setAttribute('data-chart-kind', chartKindOf(drawn, options.timeKeys).kind);
    root.append(
      meta(result, options),
      h(
        'div',
        { class: 'figure-and-table' },
        figures(result, parts, options),
        resultTable(result, options),
      ),
    );
    if (result.truncatedBy === 'query_limit')
      root.append(
        h(
          'p',
          { class: 'truncated' },
          `Truncated at the query's limit of ${result.rows.length} rows.`,
        ),
      );
    if (result.truncatedBy === 'row_budget' && result.nextCursor && more) {
      const cursor = result.nextCursor;
      const button = h(
        'button',
        { type: 'button', class: 'more' },
        `Truncated by the row budget: load more`,
      );
      button.addEventListener('click', async () => {
        button.setAttribute('disabled', '');
        try {
          const next = await more(cursor);
          if (next.status === 'refused') root.append(refusalView(next));
          else draw({ ...next, rows: [...result.rows, ...next.rows] });
        } catch (error) {
          // Said where the rows end; the button can be pressed again.
          root.append(errorView(error));
          button.removeAttribute('disabled');
        }
      });
      root.append(button);
    }
  };
  if (answer.status === 'refused') root.append(refusalView(answer));
  else draw(answer);
  return root;
}

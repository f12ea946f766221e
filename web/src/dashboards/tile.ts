import type { ReportAnswer, ReportResult } from '../types.js';
import { CURRENCY, fixedCurrency } from '../report/currency.js';
import { h, thirdParty } from '../dom.js';
import type { DashboardSettings } from './dashboard-period.js';
import {
  bodyOfQuery,
  explorerHref,
  moneyByCurrency,
  type RunBody,
} from '../explorer/explorer-query.js';
import { namesOf } from '../session/names.js';
import { comparableRange } from '../report/periods.js';
import { resultView } from '../report/result-view.js';
import type { SavedQuery } from './saved-queries.js';
import type { Session } from '../session/session.js';
import { errorView } from '../error-view.js';

/**
 * A saved query run and drawn as a tile. Without steering it is the saved query's own answer
 * (run_saved_query). The page runs the same query through run_semantic_query, with the query
 * the saved one resolved to (its `semanticQuery`), when it must differ: the dashboard's period in
 * place of the tile's own, or the currency dimension added to a money query that would otherwise
 * add currencies together. With "compare", the same query runs again over the previous period.
 */
type Query = ReportResult['semanticQuery'];

/** A money query the page splits by currency: its view offers currency and nothing fixes one. */
function needsCurrency(session: Session, query: Query): boolean {
  return (
    !!session.catalog &&
    moneyByCurrency(session.catalog, query.metrics) &&
    !(query.dimensions ?? []).includes(CURRENCY) &&
    !fixedCurrency(query)
  );
}

/** The body the tile runs under the dashboard's settings, or null when the saved answer stands. */
function steeredBody(
  session: Session,
  saved: ReportResult,
  settings: DashboardSettings,
): RunBody | null {
  const split = needsCurrency(session, saved.semanticQuery);
  const period = settings.period;
  if (!split && period.kind === 'saved') return null;
  const query = saved.semanticQuery;
  const dimensions = split ? [...(query.dimensions ?? []), CURRENCY] : query.dimensions;
  // A currency split multiplies the rows: the limit grows with it, within the schema's 1,000.
  const limit = split ? Math.min(1000, (query.limit ?? 100) * 4) : query.limit;
  if (period.kind === 'saved') return bodyOfQuery(query, { dimensions, limit });
  if (period.kind === 'range')
    return bodyOfQuery(query, {
      dimensions,
      limit,
      timeRange: { from: period.from, to: period.to },
    });
  return { ...bodyOfQuery(query, { dimensions, limit, timeRange: null }), period: { ...period } };
}

export function tilePanel(
  session: Session,
  query: SavedQuery,
  settings: DashboardSettings,
  heading: 'h2' | 'h3' = 'h2',
): HTMLElement {
  const body = h('div', { class: 'panel-body' }, h('p', { class: 'loading' }, 'Running…'));
  const links = h('p', { class: 'tile-links' });
  const panel = h(
    'section',
    { class: 'tile', 'data-saved-query': query.id },
    h(heading, {}, thirdParty(query.name)),
    links,
    body,
  );
  void runTile(session, query, settings, body, links).catch((error: unknown) =>
    body.replaceChildren(errorView(error)),
  );
  return panel;
}

async function runTile(
  session: Session,
  query: SavedQuery,
  settings: DashboardSettings,
  body: HTMLElement,
  links: HTMLElement,
): Promise<void> {
  const runSaved = (cursor?: string) =>
    session.client.call('run_saved_query', {
      savedQueryId: query.id,
      ...(cursor ? { cursor } : {}),
    }) as Promise<ReportAnswer>;
  const runQuery = (run: RunBody, cursor?: string) =>
    session.client.call(
      'run_semantic_query',
      (cursor ? { ...run, cursor } : run) as never,
    ) as Promise<ReportAnswer>;
  const [saved, names] = await Promise.all([runSaved(), namesOf(session)]);
  let answer: ReportAnswer = saved;
  let more = runSaved;
  const steered = saved.status === 'refused' ? null : steeredBody(session, saved, settings);
  if (steered) {
    answer = await runQuery(steered);
    more = (cursor) => runQuery(steered, cursor);
  }
  let previous: ReportResult | null = null;
  if (answer.status !== 'refused' && settings.compare) {
    const range = answer.semanticQuery.timeRange;
    if (range) {
      // A period not over yet is set against the same days of the one before (periods.ts).
      const earlier = await runQuery(
        bodyOfQuery(answer.semanticQuery, { timeRange: comparableRange(range).range }),
      );
      previous = earlier.status === 'refused' ? null : earlier;
    } else links.append(h('span', { class: 'note' }, 'All time: choose a period to compare. '));
  }
  if (answer.status !== 'refused') {
    const asRun = answer.semanticQuery;
    links.append(h('a', { href: explorerHref(asRun) }, 'Open in explorer'));
  }
  const view = resultView(answer, {
    timeKeys: session.timeKeys,
    names,
    title: query.name.value,
    more,
    previous,
    pick:
      answer.status === 'refused'
        ? undefined
        : (filters) => {
            location.hash = explorerHref((answer as ReportResult).semanticQuery, filters);
          },
  });
  body.replaceChildren(view);
  // A table of many columns (a comparison of several metrics) gets the whole width.
  if ((view.querySelector('thead tr')?.childElementCount ?? 0) > 5)
    body.parentElement?.classList.add('wide');
}

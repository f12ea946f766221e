import { VmsReadError, VmsReadRefusal } from 'vms-read-client';
import { h, thirdParty } from './dom.js';
import { recordsSection } from './records/home-cards.js';
import { resultView, type ReportAnswer } from './result-view.js';
import { dashboardsOf, savedQueries, type SavedQuery } from './saved-queries.js';
import type { Session } from './session.js';

/** An error as the page shows it: the service's code and message, and the request id. */
export function errorView(error: unknown): HTMLElement {
  if (error instanceof VmsReadError)
    return h(
      'p',
      { class: 'error', role: 'alert' },
      `${error.status} ${error.code}: ${error.body.error.message} (request ${error.requestId})`,
    );
  if (error instanceof VmsReadRefusal)
    return h('p', { class: 'error', role: 'alert' }, error.message);
  return h(
    'p',
    { class: 'error', role: 'alert' },
    `Something went wrong: ${(error as Error).message}`,
  );
}

/** Runs a saved query and draws it, continuing through nextCursor on request. */
function savedQueryPanel(session: Session, query: SavedQuery, heading: 'h2' | 'h3'): HTMLElement {
  const body = h('div', { class: 'panel-body' }, h('p', { class: 'loading' }, 'Running…'));
  const panel = h(
    'section',
    { class: 'tile', 'data-saved-query': query.id },
    h(heading, {}, thirdParty(query.name)),
    body,
  );
  const run = (cursor?: string) =>
    session.client.call('run_saved_query', {
      savedQueryId: query.id,
      ...(cursor ? { cursor } : {}),
    }) as Promise<ReportAnswer>;
  run()
    .then((answer) => body.replaceChildren(resultView(answer, session.timeKeys, run)))
    .catch((error: unknown) => body.replaceChildren(errorView(error)));
  return panel;
}

/**
 * The home page: the dashboards, briefings and library for a staff token, then the record lists
 * this token can read; a token without reports gets its sentence and the records alone.
 */
export async function homeView(session: Session): Promise<HTMLElement> {
  if (!session.catalog)
    return h(
      'div',
      {},
      h('p', { class: 'notice' }, session.noReports ?? ''),
      await recordsSection(session, 'h1'),
    );
  const records = recordsSection(session, 'h2');
  const queries = await savedQueries(session.client);
  const dashboards = dashboardsOf(queries);
  const list = (kind: SavedQuery['kind']) =>
    h(
      'ul',
      { class: 'query-list' },
      ...queries
        .filter((q) => q.kind === kind)
        .map((q) =>
          h('li', {}, h('a', { href: `#/query/${encodeURIComponent(q.id)}` }, thirdParty(q.name))),
        ),
    );
  return h(
    'div',
    {},
    h('h1', {}, 'Dashboards'),
    dashboards.size === 0
      ? h('p', {}, 'No dashboards in this workspace.')
      : h(
          'ul',
          { class: 'dashboard-list' },
          ...[...dashboards].map(([id, tiles]) =>
            h(
              'li',
              {},
              h('a', { href: `#/dashboard/${encodeURIComponent(id)}` }, id),
              ` (${tiles.length} tiles)`,
            ),
          ),
        ),
    h('h2', {}, 'Briefings'),
    list('briefing'),
    h('h2', {}, 'Library'),
    list('library'),
    await records,
  );
}

export async function dashboardView(session: Session, dashboardId: string): Promise<HTMLElement> {
  const tiles = dashboardsOf(await savedQueries(session.client)).get(dashboardId) ?? [];
  return h(
    'div',
    {},
    h('p', {}, h('a', { href: '#/' }, '← All dashboards')),
    h('h1', {}, `Dashboard ${dashboardId}`),
    tiles.length === 0
      ? h('p', {}, 'No tiles on this dashboard.')
      : h('div', { class: 'tiles' }, ...tiles.map((tile) => savedQueryPanel(session, tile, 'h2'))),
  );
}

export async function savedQueryView(session: Session, id: string): Promise<HTMLElement> {
  const query = (await savedQueries(session.client)).find((q) => q.id === id);
  if (!query) return h('p', { class: 'error' }, 'No such saved query.');
  return h(
    'div',
    {},
    h('p', {}, h('a', { href: '#/' }, '← Back')),
    savedQueryPanel(session, query, 'h2'),
  );
}

import { h, thirdParty } from './dom.js';
import { dashboardTitle } from './session/names.js';
import { recordsSection } from './records/routes.js';
import { dashboardsOf, savedQueries, type SavedQuery } from './dashboards/saved-queries.js';
import type { Session } from './session/session.js';
import { mayReadTrail, TRAIL_ADDRESS } from './session/trail-access.js';

/**
 * The home page: what this token can see, as cards. Staff see the dashboards, the explorer, the
 * briefings and library queries, and every record list; a worker or billing-entity token sees one
 * sentence on reports and the record lists its role may read. A token that may read the access
 * trail (read:audit) has its card too.
 */
const card = (
  href: string,
  title: Node | string,
  line: string,
  attributes: Record<string, string> = {},
) =>
  h(
    'a',
    { class: 'card', href, ...attributes },
    h('span', { class: 'card-title' }, title),
    h('span', { class: 'card-line' }, line),
  );

const section = (title: string, ...cards: HTMLElement[]) =>
  h(
    'section',
    { class: 'home-section' },
    h('h2', {}, title),
    h('div', { class: 'cards' }, ...cards),
  );

function queryCards(queries: SavedQuery[], kind: SavedQuery['kind'], line: string): HTMLElement[] {
  return queries
    .filter((q) => q.kind === kind)
    .map((q) => card(`#/query/${encodeURIComponent(q.id)}`, thirdParty(q.name), line));
}

export async function homeView(session: Session): Promise<HTMLElement> {
  const records = recordsSection(session, 'h2');
  const trail = mayReadTrail(session);
  // Read beside the saved queries; should those fail first, its answer is not left unhandled.
  records.catch(() => undefined);
  const parts: (HTMLElement | null)[] = [h('h1', {}, 'Your program')];
  if (!session.catalog) {
    parts.push(h('p', { class: 'notice' }, session.noReports ?? ''));
  } else {
    const queries = await savedQueries(session.client);
    const dashboards = [...dashboardsOf(queries)];
    parts.push(
      section(
        'Dashboards',
        ...dashboards.map(([id, tiles]) =>
          card(
            `#/dashboard/${encodeURIComponent(id)}`,
            dashboardTitle(id),
            `${tiles.length} tiles`,
            {
              'data-dashboard': id,
            },
          ),
        ),
        card('#/explorer', 'Explorer', 'Build a report from the catalog'),
      ),
      section('Briefings', ...queryCards(queries, 'briefing', 'Briefing')),
      section('Library', ...queryCards(queries, 'library', 'Saved query')),
    );
  }
  parts.push(await records);
  if (trail)
    parts.push(
      section(
        'Who read what',
        card(
          TRAIL_ADDRESS,
          'Access trail',
          'Each answered request: its caller and app, the records it carried.',
          { 'data-list': 'access-trail' },
        ),
      ),
    );
  return h('div', { class: 'home' }, ...parts);
}

import { periodForm, settingsOf } from './dashboard-period.js';
import { decoded, h } from '../dom.js';
import { dashboardTitle } from '../session/names.js';
import { dashboardsOf, savedQueries } from './saved-queries.js';
import type { Session } from '../session/session.js';
import { tilePanel } from './tile.js';

export { errorView } from '../error-view.js';

const back = () => h('p', {}, h('a', { href: '#/' }, '← Home'));

/** An id the workspace does not have, said so (the id as text, wrapping on a phone). */
function notFound(what: 'Dashboard' | 'Saved query', id: string): HTMLElement {
  return h(
    'div',
    { class: 'not-found' },
    back(),
    h('h1', {}, `${what} not found`),
    h(
      'p',
      {},
      `No ${what.toLowerCase()} of this workspace has the id `,
      h('code', { class: 'id' }, id),
      '.',
    ),
  );
}

/**
 * A dashboard: its title (read from its id, names.ts), the period and comparison for every tile,
 * and its tiles. `path` is the id as it is in the address, with its settings after a `?`.
 */
export async function dashboardView(session: Session, path: string): Promise<HTMLElement> {
  const [encoded, search = ''] = path.split('?');
  const id = decoded(encoded);
  const tiles = dashboardsOf(await savedQueries(session.client)).get(id);
  if (!tiles) return notFound('Dashboard', id);
  const settings = settingsOf(search);
  return h(
    'div',
    {},
    back(),
    h('h1', {}, dashboardTitle(id)),
    h(
      'p',
      { class: 'meta' },
      `Dashboard `,
      h('code', { class: 'id' }, id),
      ` · ${tiles.length} tiles`,
    ),
    periodForm(id, settings),
    h('div', { class: 'tiles' }, ...tiles.map((tile) => tilePanel(session, tile, settings))),
  );
}

export async function savedQueryView(session: Session, id: string): Promise<HTMLElement> {
  const query = (await savedQueries(session.client)).find((q) => q.id === id);
  if (!query) return notFound('Saved query', id);
  return h('div', {}, back(), tilePanel(session, query, settingsOf(''), 'h2'));
}

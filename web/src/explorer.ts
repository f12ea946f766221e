import { h } from './dom.js';
import type { Session } from './session.js';

/** The explorer: being built (issue 14, item 3). */
export async function explorerView(session: Session): Promise<HTMLElement> {
  return h(
    'div',
    {},
    h('h1', {}, 'Explorer'),
    h('p', {}, `${session.catalog.metrics.length} metrics in the catalog.`),
  );
}

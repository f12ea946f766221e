import { h } from '../dom.js';
import { searchOf } from '../records/list-search.js';
import { listView } from '../records/list-view.js';
import type { Session } from '../session/session.js';
import { mayReadTrail } from '../session/trail-access.js';
import { ACCESS_TRAIL } from './trail-list.js';

/** What the trail is, above its search. */
const ABOUT =
  'Each answered request of the API and of MCP, newest first: who called, through which app, ' +
  'and which records the answer carried. "Personal data" marks a worker’s name or work email in ' +
  'the answer. The trail keeps ids only, never names or emails.';

/**
 * The access trail's page (`#/access-trail?…`, DESIGN §4.17) for a staff token holding
 * read:audit; with a worker in its search it is "Who saw this worker", the worker's name beside
 * the id where the token may read names. Another token reads one sentence why there is nothing.
 */
export async function trailView(session: Session, query: string): Promise<HTMLElement> {
  if (!mayReadTrail(session))
    return h(
      'div',
      {},
      h('h1', {}, ACCESS_TRAIL.title),
      h(
        'p',
        { class: 'notice' },
        'The access trail is for staff tokens holding the read:audit scope; this token does not.',
      ),
      h('p', {}, h('a', { href: '#/' }, 'Home')),
    );
  const search = searchOf(query, ACCESS_TRAIL);
  const view = await listView(session, ACCESS_TRAIL, search);
  (view.querySelector('h1') as HTMLElement).after(h('p', { class: 'about' }, ABOUT));
  return view;
}

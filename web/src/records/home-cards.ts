import { VmsReadError, type OperationName } from 'vms-read-client';
import { mayCall } from '../session/reach.js';
import { h } from '../dom.js';
import { dataCache } from '../session/data-follow.js';
import type { Session } from '../session/session.js';
import { RECORD_LISTS, type RecordList } from './record-lists.js';

/**
 * What a list holds for this token, read with one record at most: `records` (a card), `empty`
 * (the token may read it and sees nothing: a worker's invoices, a billing entity's timesheets),
 * or `forbidden` (a scope or role the token lacks: not asked, not offered at all).
 */
type Reach = 'records' | 'empty' | 'forbidden';

async function reachOf(session: Session, list: RecordList): Promise<Reach> {
  // A list the token's role and scopes do not allow is not asked (reach.ts).
  if (!mayCall(session.reach, list.operation as OperationName)) return 'forbidden';
  const call = session.client.call as (name: string, input: object) => Promise<unknown>;
  try {
    const page = (await call(list.operation, { limit: 1 })) as { items?: unknown[] };
    return page.items?.length === 0 ? 'empty' : 'records';
  } catch (error) {
    if (error instanceof VmsReadError && error.status === 403) return 'forbidden';
    return 'records'; // anything else is said on the list's own page
  }
}

/** Every list's reach for this token, read in parallel once per data mark (each call is quota). */
const known = dataCache<Promise<{ list: RecordList; reach: Reach }[]>>();
function reaches(session: Session) {
  return known(session, () =>
    Promise.all(RECORD_LISTS.map(async (list) => ({ list, reach: await reachOf(session, list) }))),
  );
}

const card = (list: RecordList) =>
  h(
    'a',
    { class: 'card', href: `#/records/${list.key}`, 'data-list': list.key },
    h('span', { class: 'card-title' }, list.title),
    h('span', { class: 'card-line' }, list.holds),
  );

/** The home page's cards: one per record list this token can read and that holds its records. */
export async function recordCards(session: Session): Promise<HTMLElement[]> {
  return (await reaches(session)).filter((r) => r.reach === 'records').map((r) => card(r.list));
}

/** The records part of a home page: the cards, and the lists that are empty for this token. */
export async function recordsSection(session: Session, heading: 'h1' | 'h2'): Promise<HTMLElement> {
  const all = await reaches(session);
  const shown = all.filter((r) => r.reach === 'records');
  const empty = all.filter((r) => r.reach === 'empty').map((r) => r.list.title.toLowerCase());
  return h(
    'section',
    { class: 'records-home', 'aria-labelledby': 'records-heading' },
    h(heading, { id: 'records-heading' }, 'Records'),
    shown.length === 0
      ? h('p', {}, 'No records are visible to this token.')
      : h('div', { class: 'cards record-cards' }, ...shown.map((r) => card(r.list))),
    empty.length > 0
      ? h(
          'p',
          { class: 'note empty-lists' },
          `Nothing visible to this token in: ${empty.join(', ')}.`,
        )
      : null,
  );
}

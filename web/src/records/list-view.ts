import { h, replace, type Provenance } from '../dom.js';
import { refusalView } from '../report/result-view.js';
import type { Session } from '../session/session.js';
import { errorView } from '../error-view.js';
import { supplierChoices } from './choices.js';
import { addressOf, searchForm } from './list-search.js';
import type { ListSearch } from './search-fields.js';
import { searchWords } from './search-words.js';
import { recordTable, type ApiRecord, withNames } from './record-fields.js';
import type { RecordList } from './record-lists.js';

/** The plan's page size at most (Team and Business plans: 50); larger values are reduced. */
const PAGE_SIZE = 50;

interface RecordPage {
  items: ApiRecord[];
  hasMore: boolean;
  nextCursor: string | null;
}
interface ListRefusal {
  status: 'refused';
  code: string;
  message: Provenance;
}

/** One page of a search: from the start, or from a previous page's nextCursor. */
export function readPage(
  session: Session,
  list: RecordList,
  search: ListSearch,
  cursor?: string,
): Promise<RecordPage | ListRefusal> {
  const call = session.client.call as (name: string, input: object) => Promise<unknown>;
  return call(list.operation, {
    ...(list.inputOf ? list.inputOf(search.filters) : search.filters),
    ...(list.unordered ? {} : { order: search.order }),
    limit: PAGE_SIZE,
    ...(cursor ? { cursor } : {}),
  }) as Promise<RecordPage | ListRefusal>;
}

/**
 * A record list and its search, a page at a time through the API's cursors: "Next page" sends
 * the page's nextCursor, "Previous page" the one that read the page before, "First page" none.
 * The search is in the address; the cursors stay in this closure: not in the address, not on the
 * page.
 */
export async function listView(
  session: Session,
  list: RecordList,
  search: ListSearch,
): Promise<HTMLElement> {
  const nothing = list.unit?.[1] ?? list.title.toLowerCase();
  // Suppliers by name, for a list that searches by supplier (the trail does not).
  const bySupplier = list.filters.some((f) => f.kind === 'supplier');
  const searched = searchWords(
    search,
    list.filters,
    bySupplier ? await supplierChoices(session) : [],
  );
  /** cursors[i] read page i (undefined: the first page). */
  const cursors: (string | undefined)[] = [undefined];
  let index = 0;
  let next: string | null = null;
  const body = h('div', { class: 'list-body' });
  const heading = h('h1', {}, ...(list.headingOf?.(search.filters) ?? [list.title]));
  const status = h('p', { class: 'meta', 'aria-live': 'polite' });
  const button = (label: string, go: () => number) => {
    const b = h('button', { type: 'button', class: 'secondary' }, label) as HTMLButtonElement;
    b.addEventListener('click', () => void show(go()));
    return b;
  };
  const first = button('First page', () => 0);
  const previous = button('Previous page', () => index - 1);
  const forward = button('Next page', () => {
    cursors[index + 1] = next ?? undefined;
    return index + 1;
  });
  const pager = h(
    'nav',
    { class: 'pager', 'aria-label': `${list.title} pages` },
    first,
    previous,
    forward,
  );
  const settle = (busy: boolean) => {
    first.disabled = busy || index === 0;
    previous.disabled = busy || index === 0;
    forward.disabled = busy || next === null;
  };

  async function show(to: number): Promise<void> {
    settle(true);
    let page: RecordPage | ListRefusal;
    try {
      page = await readPage(session, list, search, cursors[to]);
    } catch (error) {
      replace(body, errorView(error));
      settle(false);
      return;
    }
    index = to;
    if ('status' in page) {
      // A cursor refused (invalid_cursor): its code and message; "First page" starts again.
      next = null;
      replace(body, refusalView(page));
      status.textContent = '';
    } else {
      next = page.hasMore ? page.nextCursor : null;
      const count = page.items.length;
      const order = search.order === 'asc' ? 'oldest first' : 'newest first';
      const [one, many] = list.unit ?? ['record', 'records'];
      status.textContent = `Page ${index + 1} · ${count} ${count === 1 ? one : many}, ${order}${searched ? ` · ${searched}` : ''}${next ? '' : ' · the last page'}`;
      const shown =
        count === 0
          ? h(
              'p',
              { class: 'empty' },
              searched
                ? `No ${nothing} visible to this token match this search (${searched}).`
                : `No ${nothing} visible to this token.`,
            )
          : recordTable(list.title, list.columns, page.items, undefined, list.idKey, list.tableClass);
      // The heading's workers ("Who saw worker …") are named with the table's, in one request.
      replace(body, await withNames(session, shown, heading));
    }
    settle(false);
  }

  await show(0);
  return h(
    'div',
    // Which search this page answers, as the address says it (tests wait for the new one).
    {
      class: 'record-list',
      'data-list': list.key,
      'data-address': addressOf(list.address, search),
    },
    h(
      'p',
      {},
      h('a', { href: list.back?.href ?? '#/records' }, `← ${list.back?.label ?? 'All records'}`),
    ),
    heading,
    list.filters.length > 0 ? await searchForm(session, list, search) : null,
    status,
    body,
    pager,
  );
}

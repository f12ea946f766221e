import { h } from '../dom.js';
import { refusalView, type ReportRefusal } from '../result-view.js';
import {
  fieldValue,
  period,
  plainId,
  recordTable,
  when,
  words,
  type ApiRecord,
  type Column,
} from '../records/record-fields.js';

/** A page of the change feed (list_changes). */
export interface ChangePage {
  items: { type: string; id: string; version: number; record: ApiRecord }[];
  hasMore: boolean;
  nextCursor: string;
}

export function isChangePage(data: unknown): data is ChangePage {
  const page = data as Partial<ChangePage> | null;
  return typeof page === 'object' && page !== null && Array.isArray(page.items);
}

/** The field that names a record, as its list page shows it first. */
const NAMED_BY = ['displayName', 'name', 'number', 'description', 'category'];

/** What a changed record is about: its name, else what it is of (an approval, a timesheet). */
function about(type: unknown, record: ApiRecord) {
  const key = NAMED_BY.find((k) => k in record) ?? (type === 'worker' ? 'displayName' : null);
  if (key) return fieldValue(record, key);
  if (type === 'approval_status')
    return `${words(record.subjectType)} ${String(record.subjectRef)}, step ${String(record.step)}`;
  if (type === 'timesheet') return `${String(record.workerId)}, ${period(record)}`;
  return '—';
}

const recordOf = (change: ApiRecord) => change.record as ApiRecord;
const COLUMNS: Column[] = [
  { heading: 'Version', num: true, value: (c) => String(c.version) },
  { heading: 'Type', value: (c) => words(c.type) },
  { heading: 'Id', value: (c) => plainId(c.id) },
  { heading: 'About', value: (c) => about(c.type, recordOf(c)) },
  { heading: 'Status', value: (c) => words(recordOf(c).status ?? recordOf(c).state) },
  { heading: 'Updated', value: (c) => when(recordOf(c).updatedAt) },
];

type Change = ChangePage['items'][number];

/**
 * The change feed as a table, a row per changed record (its version, type, id, name, status and
 * when it was updated); "Load more" follows nextCursor while hasMore is true.
 */
export function changesView(
  first: ChangePage,
  more?: (cursor: string) => Promise<ChangePage | ReportRefusal>,
): HTMLElement {
  const root = h('div', { class: 'changes' });
  const draw = (items: Change[], page: ChangePage) => {
    root.replaceChildren(
      h(
        'p',
        { class: 'meta' },
        `${items.length} change${items.length === 1 ? '' : 's'}`,
        page.hasMore ? ' · more to read' : ' · up to date',
      ),
      items.length
        ? recordTable('Changes', COLUMNS, items as unknown as ApiRecord[])
        : h('p', { class: 'empty' }, 'No changes.'),
    );
    if (!page.hasMore || !more) return;
    const button = h('button', { type: 'button', class: 'more' }, 'Load more changes');
    button.addEventListener('click', async () => {
      button.setAttribute('disabled', '');
      try {
        const next = await more(page.nextCursor);
        // A cursor the feed no longer takes is a refusal, said by its code as the page says it.
        if ('status' in next) root.append(refusalView(next));
        else draw([...items, ...next.items], next);
      } catch (error) {
        root.append(h('p', { class: 'error', role: 'alert' }, (error as Error).message));
        button.removeAttribute('disabled');
      }
    });
    root.append(button);
  };
  draw(first.items, first);
  return root;
}

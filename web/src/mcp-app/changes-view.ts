import type { ReportRefusal } from '../types.js';
import { h } from '../dom.js';
import { refusalView } from '../report/result-view.js';
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

/**
 * A page of the change feed (list_changes): records added or changed, and tombstones (`record`
 * null) of records deleted or no longer visible to this token.
 */
export interface ChangePage {
  items: {
    type: string;
    id: string;
    version: number;
    record: ApiRecord | null;
    removed?: { reason: string };
  }[];
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

/** What a tombstone says in place of the record's summary: why it left this reader. */
const REMOVED: Record<string, string> = { deleted: 'deleted', not_visible: 'no longer visible' };

function removal(change: ApiRecord) {
  const reason = (change.removed as { reason?: unknown } | undefined)?.reason;
  const said =
    typeof reason === 'string' && Object.hasOwn(REMOVED, reason) ? REMOVED[reason] : 'removed';
  return h('span', { class: 'removed' }, said);
}

/** A cell of the changed record; a tombstone (no record) has "—" there. */
const ofRecord =
  (cell: Column['value']): Column['value'] =>
  (change) =>
    change.record === null ? '—' : cell(change.record as ApiRecord);

const COLUMNS: Column[] = [
  { heading: 'Version', num: true, value: (c) => String(c.version) },
  { heading: 'Type', value: (c) => words(c.type) },
  { heading: 'Id', value: (c) => plainId(c.id) },
  {
    heading: 'About',
    value: (c) => (c.record === null ? removal(c) : about(c.type, c.record as ApiRecord)),
  },
  { heading: 'Status', value: ofRecord((r) => words(r.status ?? r.state)) },
  { heading: 'Updated', value: ofRecord((r) => when(r.updatedAt)) },
];

/** A tombstone's row stands apart from the records'. */
const rowClass = (change: ApiRecord) => (change.record === null ? 'removed' : undefined);

type Change = ChangePage['items'][number];

/**
 * The change feed as a table, a row per changed record (its version, type, id, name, status and
 * when it was updated), and per tombstone (its version, type and id, and "deleted" or "no longer
 * visible" in place of the name); "Load more" follows nextCursor while hasMore is true.
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
        ? recordTable('Changes', COLUMNS, items as unknown as ApiRecord[], rowClass)
        : h('p', { class: 'empty' }, 'No changes.'),
    );
    if (!page.hasMore || !more) return;
    const button = h('button', { type: 'button', class: 'more' }, 'Load more changes');
    button.addEventListener('click', async () => {
      button.setAttribute('disabled', '');
      try {
        const next = await more(page.nextCursor);
        // A cursor the feed no longer takes (invalid_cursor, or cursor_expired once tombstones
        // after it were removed) is a refusal, said by its code as the page says it.
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

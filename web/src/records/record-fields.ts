import { csvButton, fileNameOf, tableCsv } from '../csv.js';
import { cell, h, isProvenance, thirdParty } from '../dom.js';
import { namesOf, workerNamesOf } from '../session/names.js';
import { watchFit } from './fitting.js';
import type { Session } from '../session/session.js';

/** A record as the API sends it: its fields by key (provenance objects for people's text). */
export type ApiRecord = Record<string, unknown>;

type Child = Node | string;

/** Keys the API omits from worker records unless the token carries read:pii. */
const PII_KEYS = new Set(['displayName', 'workEmail']);

/** Where a personal field's key is absent: withheld, never blank. */
export const withheld = () => h('span', { class: 'withheld' }, 'withheld (needs read:pii)');

/**
 * One field of a record as text: third-party text marked as such (`cell`), null as "—", and a
 * personal key the API left out as "withheld".
 */
export function fieldValue(record: ApiRecord, key: string): Child {
  if (!(key in record)) return PII_KEYS.has(key) ? withheld() : '—';
  const ref = record[key];
  if (key === 'supplierRef' && isProvenance(ref))
    return h('span', { class: 'supplier', 'data-supplier': ref.value }, thirdParty(ref));
  const value = cell(record[key]);
  return typeof value === 'object' && value ? value : String(value ?? '—');
}

/**
 * A view with each supplier code followed by the supplier's name (list_suppliers, read once per
 * data mark; third-party text), where this token may list suppliers, and each worker id by the
 * worker's name where it may read names (read:pii; list_workers by `ids`: the view's workers in
 * one request, each read once per data mark, session/data-follow.ts). Without the scope the ids
 * stand alone, as the API withholds the names. A link already named is left as it is, so a part
 * drawn later (an event's folded records) is named on its own.
 */
export async function withNames(
  session: Session,
  view: HTMLElement,
  ...more: HTMLElement[]
): Promise<HTMLElement> {
  const views = [view, ...more];
  const all = (selector: string) => views.flatMap((v) => [...v.querySelectorAll(selector)]);
  const codes = all('[data-supplier]:not([data-named])');
  // Suppliers' names are read only for a view that shows a supplier (the trail shows none).
  const names = codes.length > 0 ? await namesOf(session) : null;
  for (const code of codes) {
    code.setAttribute('data-named', '');
    const name = names?.supplier(code.getAttribute('data-supplier') ?? '');
    if (name) code.append(' ', h('span', { class: 'supplier-name' }, thirdParty(name)));
  }
  // Workers folded out of sight (an event's "N more") are named when they are opened.
  const folded = (link: Element) => link.closest('details:not([open])') !== null;
  const links = all('[data-worker]:not([data-named])').filter((link) => !folded(link));
  for (const details of all('details:not([open])'))
    if (details.querySelector('[data-worker]:not([data-named])'))
      details.addEventListener('toggle', () => void withNames(session, details as HTMLElement), {
        once: true,
      });
  const found = await workerNamesOf(
    session,
    links.map((link) => link.getAttribute('data-worker') ?? ''),
  );
  for (const link of links) {
    link.setAttribute('data-named', '');
    const name = found.get(link.getAttribute('data-worker') ?? '');
    if (name) link.after(' ', h('span', { class: 'worker-name' }, thirdParty(name)));
  }
  return view;
}

/** An enumerated value in words: `credit_note` → "credit note". */
export function words(value: unknown): string {
  return typeof value === 'string' ? value.replace(/_/g, ' ') : value == null ? '—' : String(value);
}

/** A timestamp to the minute, in UTC as the API gives it; the exact value in `datetime`. */
export function when(value: unknown): Child {
  if (typeof value !== 'string') return '—';
  return h('time', { datetime: value }, `${value.slice(0, 16).replace('T', ' ')} UTC`);
}

export const period = (record: ApiRecord) =>
  `${String(record.periodStart)} – ${String(record.periodEnd)}`;

/** The pages an id opens: each is a get operation of the API. */
export type RecordKind = 'invoice' | 'timesheet' | 'worker';

export const recordHref = (kind: RecordKind, id: string) => `#/${kind}/${encodeURIComponent(id)}`;

/** An id, linked to its record's page; long ids wrap. */
export function recordLink(kind: RecordKind, id: unknown): Child {
  if (typeof id !== 'string') return '—';
  return h('a', { href: recordHref(kind, id), class: 'record-id' }, id);
}

/** A worker's id, linked to the worker's page; `withNames` puts the name beside it. */
export function workerLink(id: unknown): Child {
  if (typeof id !== 'string') return '—';
  return h('a', { href: recordHref('worker', id), class: 'record-id', 'data-worker': id }, id);
}

/** An id with no page of its own. */
export const plainId = (id: unknown): Child =>
  typeof id === 'string' ? h('span', { class: 'record-id' }, id) : '—';

/** A column of a record table: its heading and how a record fills its cell. */
export interface Column {
  heading: string;
  value: (record: ApiRecord) => Child;
  /** Numbers and money: right-aligned. */
  num?: boolean;
  /**
   * A second field on its own line under the first, in the same cell (an invoice's lines: their
   * eleven fields fit 1280 px only in pairs); in the CSV each part is a column of its own.
   */
  below?: { heading: string; value: (record: ApiRecord) => Child };
}

/** A table cell of one field, or of two: the second on its own line under the first (Column.below). */
function cellOf(tag: 'td' | 'th', column: Column, first: Child, second?: Child): HTMLElement {
  const attributes = {
    scope: tag === 'th' ? 'col' : undefined,
    class: column.num ? 'num' : undefined,
    // What a cell is, where a narrow screen draws rows as cards (the access trail's, CSS).
    'data-label':
      tag === 'td'
        ? `${column.heading}${column.below ? ` · ${column.below.heading}` : ''}`
        : undefined,
  };
  if (!column.below) return h(tag, attributes, first);
  return h(
    tag,
    attributes,
    h('span', { class: 'part' }, first),
    h('span', { class: 'part below' }, second),
  );
}

const withRole = (cell: HTMLElement, role: string | undefined | '') => {
  if (role) cell.setAttribute('role', role);
  return cell;
};

/**
 * Records as a table in its own scrolling region (a phone scrolls the table, not the page), a row
 * per record with its id (`idKey`) in `data-id`; `rowClass` marks rows (corrections).
 */
export function recordTable(
  label: string,
  columns: Column[],
  records: ApiRecord[],
  rowClass: (record: ApiRecord) => string | undefined = () => undefined,
  idKey = 'id',
  tableClass?: string,
): HTMLElement {
  // A table with a layout of its own (the trail's cards on a phone: CSS draws its rows as
  // blocks) keeps its roles explicitly, as browsers drop them from a table drawn otherwise.
  const role = (name: string) => (tableClass ? { role: name } : {});
  const wrap = h(
    'div',
    {
      class: `table-wrap records-table${tableClass ? ` ${tableClass}` : ''}`,
      tabindex: 0,
      role: 'region',
      'aria-label': label,
    },
    h(
      'table',
      role('table'),
      h(
        'thead',
        role('rowgroup'),
        h(
          'tr',
          role('row'),
          ...columns.map((c) =>
            withRole(cellOf('th', c, c.heading, c.below?.heading), tableClass && 'columnheader'),
          ),
        ),
      ),
      h(
        'tbody',
        role('rowgroup'),
        ...records.map((record) =>
          h(
            'tr',
            { 'data-id': String(record[idKey]), class: rowClass(record), ...role('row') },
            ...columns.map((c) =>
              withRole(
                cellOf('td', c, c.value(record), c.below?.value(record)),
                tableClass && 'cell',
              ),
            ),
          ),
        ),
      ),
    ),
  );
  const table = wrap.querySelector('table') as HTMLTableElement;
  const cue = h(
    'p',
    { class: 'scroll-cue', hidden: true },
    'Scroll sideways for more columns; the first stays in view. →',
  );
  watchFit(wrap, cue);
  return h(
    'div',
    { class: 'record-table' },
    cue,
    wrap,
    h(
      'div',
      { class: 'table-actions' },
      csvButton(fileNameOf(label), () => tableCsv(table)),
    ),
  );
}

/** A record's fields as label and value pairs. */
export function fieldList(fields: [string, Child][]): HTMLElement {
  return h(
    'dl',
    { class: 'record-fields' },
    ...fields.map(([label, value]) => h('div', {}, h('dt', {}, label), h('dd', {}, value))),
  );
}

/** A get answered `item: null`: absent, another workspace's or not this token's, alike by design. */
export function notVisible(what: string, id: string): HTMLElement {
  return h(
    'div',
    {},
    h('h1', {}, `No ${what} to show`),
    h(
      'p',
      { class: 'notice' },
      `No ${what} with id `,
      h('span', { class: 'record-id' }, id),
      ' is visible to this token: it does not exist, or this token may not read it.',
    ),
    h('p', {}, h('a', { href: '#/' }, 'Home')),
  );
}

/** A way back to a list, above a record. */
const backTo = (list: string, title: string) =>
  h('p', {}, h('a', { href: `#/records/${list}` }, `← ${title}`));

/**
 * A record's page: the way back to its list, its heading (what it is, and its id), then its
 * parts (fields, lines, entries).
 */
export function recordPage(
  list: { key: string; title: string },
  what: string,
  id: string,
  ...parts: (HTMLElement | null)[]
): HTMLElement {
  return h(
    'div',
    { class: 'record-page', 'data-record': id },
    backTo(list.key, list.title),
    h('h1', {}, `${what} `, h('span', { class: 'record-id' }, id)),
    ...parts,
  );
}
